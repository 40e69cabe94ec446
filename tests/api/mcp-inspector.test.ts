// The box's MCP server driven by a client nobody here wrote: the MCP Inspector's CLI mode, over stdio
// (`agentbox mcp`) and streamable HTTP (the API's /mcp), against a real box with real agents.
import t from 'tap';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const inspector = path.join(repo, 'node_modules/.bin/mcp-inspector-cli');
// The inspector (1.0.3) tests for its own package.json relative to the working directory but imports
// it relative to its module: run from its build folder, where both name the same file.
const inspectorCwd = path.join(repo, 'node_modules/@modelcontextprotocol/inspector-cli/build');
const agentbox = path.join(repo, 'dist/bin/agentbox.js');

let box: TestServer;
t.before(async () => {
  box = await startTestServer({
    toml: '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n',
  });
});
t.teardown(() => box?.close());

type ToolAnswer = { content: Array<{ type: string; text: string }>; isError?: boolean };

/** Run the inspector once; its stdout is one JSON document. */
async function inspect(target: string[], method: string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(inspector, ['--cli', ...target, ...method], {
    cwd: inspectorCwd,
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}
const call = (target: string[], tool: string, args: Record<string, string> = {}) =>
  inspect(target, [
    '--method',
    'tools/call',
    '--tool-name',
    tool,
    ...Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]),
  ]) as Promise<ToolAnswer>;
const json = (a: ToolAnswer): Record<string, unknown> => JSON.parse(a.content[0]!.text) as Record<string, unknown>;
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';

/** The same checks over either transport. */
async function drive(
  t: {
    ok: (v: unknown, m: string) => void;
    notOk: (v: unknown, m: string) => void;
    equal: (a: unknown, b: unknown, m: string) => void;
    match: (a: unknown, b: unknown, m: string) => void;
  },
  target: string[],
  label: string,
): Promise<void> {
  const listed = (await inspect(target, ['--method', 'tools/list'])) as { tools: Array<{ name: string }> };
  const names = listed.tools.map((x) => x.name);
  for (const name of ['start_agent', 'list_agents', 'read_output', 'send_input', 'terminate_agent', 'search_memory', 'create_bead', 'claim_bead', 'close_bead'])
    t.ok(names.includes(name), `${label}: lists ${name}`);

  const started = await call(target, 'start_agent', { name: `echo-${label}`, command: '/bin/sh', args: JSON.stringify(['-c', `echo hello from ${label}`]) });
  t.notOk(started.isError, `${label}: start_agent`);
  const agent = json(started) as { id: string };
  const list = json(await call(target, 'list_agents')) as unknown as Array<{ id: string }>;
  t.ok(
    list.some((a) => a.id === agent.id),
    `${label}: list_agents shows it`,
  );
  const output = await waitFor(
    `${label} output`,
    async () => {
      const r = json(await call(target, 'read_output', { id: agent.id, follow_ms: '5000' }));
      return String(r['text']).includes(`hello from ${label}`) ? r : undefined;
    },
    30_000,
  );
  t.match(output, { chunks: Number }, `${label}: read_output (followed) has the agent's line`);

  const bead = json(await call(target, 'create_bead', { title: `bead of ${label}` })) as { bead: { id: string } };
  t.equal(json(await call(target, 'claim_bead', { id: bead.bead.id, claimant: 'someone' }))['claimed'], true, `${label}: claim_bead`);
  t.match(
    json(await call(target, 'close_bead', { id: bead.bead.id, outcome: 'success' })),
    { bead: { status: 'closed', outcome: 'success' } },
    `${label}: close_bead`,
  );

  const refused = await call(target, 'close_bead', { id: 'no-such-bead', outcome: 'success' });
  t.equal(refused.isError, true, `${label}: a refusal is a tool error`);
  t.match(refused.content[0]!.text, /^ABX_ERR_NOT_FOUND: /, `${label}: carrying the API's code and reason`);
}

t.test('stdio: agentbox mcp with the box key from its root', async (t) => {
  await drive(t, ['-e', `AGENTBOX_API_URL=${box.server.apiUrl}`, '-e', `AGENTBOX_ROOT=${box.paths.root}`, 'node', agentbox, 'mcp'], 'stdio');
});

t.test('http: the API at /mcp with the bearer key', async (t) => {
  await drive(t, [`${box.server.apiUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${box.key}`], 'http');
});

t.test('an agent token through /mcp sees only what that agent may touch', async (t) => {
  const spawned = await box.api('/v1/agents', { body: { name: 'holder', command: '/bin/sleep', args: ['600'] } });
  const agent = spawned.json['agent'] as { id: string; pid: number };
  const token = await waitFor('the agent token', () => tokenOf(agent.pid));
  const target = [`${box.server.apiUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
  const list = await call(target, 'list_agents');
  t.equal(list.isError, true, 'listing every agent is refused to an agent token');
  t.match(list.content[0]!.text, /^ABX_ERR_AGENT_SCOPE: /);
  t.match(json(await call(target, 'read_output', { id: agent.id })), { chunks: 0 }, 'it reads its own output');
  const start = await call(target, 'start_agent', { name: 'child', command: '/bin/true' });
  t.match(start, { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, 'and may not start agents');
  await box.api(`/v1/agents/${agent.id}`, { method: 'DELETE' });
});

t.test('/mcp without a credential is refused by the gate', async (t) => {
  const res = await fetch(`${box.server.apiUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  });
  t.equal(res.status, 401);
  t.match(await res.json(), { error: 'ABX_ERR_AUTH_REQUIRED' });
});
