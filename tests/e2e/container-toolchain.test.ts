// The toolchain agents get in the container: an agent under the sandbox in the test image (built by
// `agentbox image build` with [agents] npm) runs git, curl through the egress proxy to a test server
// on the container's loopback, python3, and the baked Claude Code and Codex CLIs — nothing installed at boot.
import t from 'tap';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { docker } from '../../scripts/cli/image/docker.js';
import { startPrivateEngine, type PrivateEngine } from '../../scripts/cli/image/private-engine.js';
import { e2eSkipped, prepareBox, removeBox, waitReady, type ComposeBox } from './support/compose-box.js';
import { AGENT_CLIS } from '../helpers/agent-clis.js';
import { waitFor } from '../helpers/wait.js';

// The test server (allowed by the egress list) and a port the list leaves out, on the container's loopback.
const SERVER_PORT = 18083;
const CLOSED_PORT = 18084;
const SPECS = Object.entries(AGENT_CLIS).map(([name, version]) => `${name}@${version}`);
const SERVER = `require("http").createServer((q,r)=>r.end("hello from the test server "+q.url)).listen(${SERVER_PORT},"127.0.0.1")`;

const manifest = (p: { api: number; metrics: number }) => `[agentbox]
name = "e2e-toolchain"

[api]
port = ${p.api}

[observability]
metrics_port = ${p.metrics}

[adapters]
beads = "off"
pods = "off"
memory = "off"
events = "off"
orchestrator = "local-procmgr"
critical = []

[sandbox.egress]
port = 3128
allow_domains = ["127.0.0.1"]
allow_ports = [${SERVER_PORT}]

[agents]
npm = ${JSON.stringify(SPECS)}
`;

// Each step prints a labelled line; curl ignores NO_PROXY (which names loopback for the API) so it
// goes through the proxy as any other destination would.
const SCRIPT = `set -e
echo "path=$PATH"
git init -q repo && cd repo
echo 'print("hi")' > hi.py
git add hi.py
git -c user.name=agent -c user.email=agent@example.com commit -q -m "first commit"
echo "git-log=$(git log --format=%s)"
cd ..
echo "curl=$(curl -sS --noproxy '' http://127.0.0.1:${SERVER_PORT}/through-the-proxy)"
echo "curl-closed=$(curl -s --noproxy '' -o /dev/null -w '%{http_code}' http://127.0.0.1:${CLOSED_PORT}/ || true)"
echo "python=$(python3 -c 'import json, sys; print(json.dumps({"major": sys.version_info[0], "file": open("repo/hi.py").read().strip()}))')"
echo "tools=$(grep -c print repo/hi.py) $(find repo -name hi.py | sed 's/hi/HI/') $(echo a b | xargs -n1 | wc -l)"
echo "claude=$(claude --version)"
echo "codex=$(codex --version)"
echo "where=$(command -v claude) $(command -v codex)"
`;

type Agent = { id: string; state: string; exitCode?: number | null };

t.test(
  'an agent in the container runs the default toolchain and the baked agent CLIs',
  { skip: e2eSkipped && 'AGENTBOX_E2E=skip', timeout: 900_000 },
  async (t) => {
    const started = Date.now();
    const engine: PrivateEngine = await startPrivateEngine();
    t.teardown(() => engine.stop());
    const box: ComposeBox = await prepareBox(engine, manifest);
    t.teardown(() => removeBox(box));
    const built = Date.now();
    t.equal(box.compose('up', '-d').status, 0, 'docker-compose up -d');
    await waitReady(box).catch((err: Error) => {
      throw new Error(`${err.message}\n${box.logs().slice(-4000)}`);
    });
    docker(['exec', '-d', box.container(), 'node', '-e', SERVER], engine.env);
    const probe = `require("http").get("http://127.0.0.1:${SERVER_PORT}/",(r)=>process.stdout.write(String(r.statusCode))).on("error",()=>process.stdout.write("0"))`;
    await waitFor('the test server to listen in the container', () => box.exec('node', '-e', probe) === '200', 15_000, 200);

    const health = await box.call<{ sandbox?: { mode?: string } }>('GET', '/health');
    t.not(health.body.sandbox?.mode, 'off', `agents are confined (${health.body.sandbox?.mode})`);
    box.exec('node', '-e', 'require("fs").mkdirSync(process.argv[1], { recursive: true })', `${boxFacts.runtime.dirs.workspaceDir}/tools`);
    const spawned = await box.call<{ agent: Agent }>('POST', '/v1/agents', { name: 'toolchain', command: '/bin/sh', args: ['-c', SCRIPT], cwd: 'tools' });
    t.equal(spawned.status, 201, `spawned: ${JSON.stringify(spawned.body)}`);
    const id = spawned.body.agent.id;
    const agent = await waitFor(
      'the agent to end',
      async () => {
        const a = (await box.call<{ agent: Agent }>('GET', `/v1/agents/${id}`)).body.agent;
        return a.state === 'running' ? undefined : a;
      },
      120_000,
      250,
    );
    const { body } = await box.call<{ chunks: Array<{ stream: string; text: string }> }>('GET', `/v1/agents/${id}/output`);
    const out = body.chunks.map((c) => c.text).join('');
    const line = (label: string) => new RegExp(`^${label}=(.*)$`, 'm').exec(out)?.[1];
    t.match(agent, { state: 'exited', exitCode: 0 }, `the script succeeded:\n${out}`);
    t.match(line('path'), /(^|:)\/usr\/bin(:|$)/, "/usr/bin (the toolchain and the CLIs' links) is on the agent's PATH");
    t.equal(line('git-log'), 'first commit', 'git init, add and commit in the workspace');
    t.equal(line('curl'), 'hello from the test server /through-the-proxy', 'curl reached the test server through the egress proxy');
    t.equal(line('curl-closed'), '403', 'and the proxy refused a port its list leaves out');
    t.same(JSON.parse(line('python') ?? '{}'), { major: 3, file: 'print("hi")' }, 'python3 with its standard library');
    t.equal(line('tools'), '1 repo/HI.py 2', 'grep, find, sed, xargs, wc');
    t.match(line('claude'), new RegExp(`^${AGENT_CLIS['@anthropic-ai/claude-code'].replace(/\./g, '\\.')}\\b`), 'claude --version: the pinned Claude Code');
    t.match(line('codex'), new RegExp(`${AGENT_CLIS['@openai/codex'].replace(/\./g, '\\.')}$`), 'codex --version: the pinned Codex CLI');
    t.match(line('where'), /^(\/usr)?\/bin\/claude (\/usr)?\/bin\/codex$/, 'both from the image, on PATH (/bin is /usr/bin)');
    t.comment(`image build and load ${((built - started) / 1000).toFixed(1)} s, boot and agent ${((Date.now() - built) / 1000).toFixed(1)} s`);
  },
);
