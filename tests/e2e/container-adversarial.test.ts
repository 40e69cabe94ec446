// Adversarial agents inside the hardened container (uid 1000, cap_drop ALL, no-new-privileges, Docker's default seccomp): the same agents and expected refusals as the local suite.
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { docker, dockerBinary } from '../../scripts/cli/image/docker.js';
import { startPrivateEngine, type PrivateEngine } from '../../scripts/cli/image/private-engine.js';
import { e2eSkipped, prepareBox, removeBox, waitReady, type ComposeBox } from './support/compose-box.js';
import { standInBundle } from './support/stand-in-bundle.js';
import { waitFor } from '../helpers/wait.js';
import { PROVIDER } from '../helpers/adversarial-expectations.js';
import { adversarialManifest, runAdversarialSuite, type AdversarialBox } from '../helpers/adversarial-suite.js';

const { dirs, files } = boxFacts.runtime;
// Ports on the container's own loopback (its network namespace): the stand-in, and one of it the egress list leaves out.
const STAND_IN_PORT = 18081;
const CLOSED_PORT = 18082;
const STAND_IN_FILE = `${dirs.tmpDir}/stand-in.mjs`;
const WRITE =
  'const fs=require("fs"),p=require("path");fs.mkdirSync(p.dirname(process.argv[1]),{recursive:true});fs.writeFileSync(process.argv[1],process.argv[2])';
// Bytes on stdin (a static binary is far past the 128 KiB an argument may hold), mode 0755.
const WRITE_EXECUTABLE = 'const fs=require("fs");fs.writeFileSync(process.argv[1],fs.readFileSync(0));fs.chmodSync(process.argv[1],0o755)';

const manifest = (p: { api: number; metrics: number }) =>
  `[agentbox]\nname = "e2e-adversarial"\n\n[api]\nport = ${p.api}\n\n[observability]\nmetrics_port = ${p.metrics}\n\n` +
  `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\ncritical = []\n\n` +
  adversarialManifest({ egressPort: 3128, allowedPort: STAND_IN_PORT, providerPort: STAND_IN_PORT });

t.test('adversarial agents in the container', { skip: e2eSkipped && 'AGENTBOX_E2E=skip', timeout: 600_000 }, async (t) => {
  const engine: PrivateEngine = await startPrivateEngine();
  t.teardown(() => engine.stop());
  // The provider's key reaches the box as an operator passes it: in docker-compose's environment (the compose file names the variable, never its value).
  const box: ComposeBox = await prepareBox({ ...engine, env: { ...engine.env, [PROVIDER.envVar]: PROVIDER.key } }, manifest);
  t.teardown(() => removeBox(box));
  const up = box.compose('up', '-d');
  t.equal(up.status, 0, `docker-compose up -d: ${up.stderr}`);
  await waitReady(box).catch((err: Error) => {
    throw new Error(`${err.message}\n${box.logs().slice(-4000)}`);
  });

  // The stand-in on the container's loopback: the listed host behind the proxy and the provider behind the broker.
  box.exec('node', '-e', WRITE, STAND_IN_FILE, await standInBundle());
  docker(['exec', '-d', box.container(), 'node', STAND_IN_FILE, String(STAND_IN_PORT)], engine.env);
  const probe = `require("http").get("http://127.0.0.1:${STAND_IN_PORT}/up",(r)=>process.stdout.write(String(r.statusCode))).on("error",()=>process.stdout.write("0"))`;
  await waitFor('the stand-in to listen in the container', () => box.exec('node', '-e', probe) === '200', 15_000, 200);

  const key = box.apiKey();
  const adversarial: AdversarialBox = {
    apiUrl: box.apiUrl,
    async call(method, url, body) {
      const res = await fetch(box.apiUrl + url, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    writeFile: async (file, text) => void box.exec('node', '-e', WRITE, file, text),
    async writeExecutable(file, data) {
      const r = spawnSync(dockerBinary(engine.env), ['exec', '-i', box.container(), 'node', '-e', WRITE_EXECUTABLE, file], {
        env: engine.env,
        input: data,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`writing ${file} in the container: ${r.error?.message ?? r.stderr}`);
    },
    readFile: async (file) => box.exec('cat', file),
    paths: {
      workspace: dirs.workspaceDir,
      apiKeyFile: files.apiKeyFile,
      identityKeyFile: files.identityKeyFile,
      stateDir: dirs.stateDir,
      installation: boxFacts.image.appDir,
    },
    readOnlyRoot: true,
    // uid 1000 without capabilities: the box cannot give agents an uid of their own.
    agentsShareBoxUid: true,
    allowedPort: STAND_IN_PORT,
    closedPort: CLOSED_PORT,
  };
  await runAdversarialSuite(t, adversarial);
});
