// The box's MCP server driven by a client nobody here wrote: the MCP Inspector's CLI mode, over stdio
// (`agentbox mcp`) and streamable HTTP (the API's /mcp), against a real box with real agents, workspace files and approvals.
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

/** The spawn an `ask` rule holds for a supervised agent; undecided it waits far longer than any test step. */
const HELD = { command: '/bin/sleep', args: ['4242'] };
const toml = [
  '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"',
  '[policy]\ndefault = "allow"\napproval_timeout_sec = 3600',
  `[[policy.rules]]\nid = "sleep-asks"\naction = "spawn"\ndecision = "ask"\ncommand = "sleep"\nargs = ${JSON.stringify(HELD.args)}`,
  '[agents.profiles.greeter]\ncommand = "/bin/sh"\nargs = ["-c", "echo greetings from the profile of $AGENTBOX_AGENT_NAME"]\ntty = true',
].join('\n');

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml });
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
type Approval = { id: string; digest: string; agent: string; state: string };
/** Start a supervised spawn the ask rule holds (over REST: its answer comes once decided) and wait until it is listed. */
async function heldSpawn(name: string): Promise<{ answer: ReturnType<TestServer['api']>; request: Approval }> {
  const answer = box.api('/v1/agents', { body: { name, ...HELD, autonomy: 'supervised' } });
  const request = await waitFor(`${name}'s approval request`, async () =>
    ((await box.api('/v1/approvals')).json['approvals'] as Approval[]).find((a) => a.agent === name),
  );
  return { answer, request };
}
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';

/** The same checks over either transport. */
async function drive(
  t: {
    ok: (v: unknown, m: string) => void;
    notOk: (v: unknown, m: string) => void;
    equal: (a: unknown, b: unknown, m: string) => void;
    match: (a: unknown, b: unknown, m: string) => void;
    same: (a: unknown, b: unknown, m: string) => void;
  },
  target: string[],
  label: string,
): Promise<void> {
  const listed = (await inspect(target, ['--method', 'tools/list'])) as { tools: Array<{ name: string }> };
  const names = listed.tools.map((x) => x.name);
  const expected = ['start_agent', 'list_agents', 'get_agent', 'read_output', 'send_input', 'terminate_agent', 'exec_in_agent'];
  expected.push('list_files', 'read_file', 'write_file', 'delete_file', 'list_approvals', 'decide_approval');
  expected.push('snapshot_agent', 'list_snapshots', 'diff_snapshots', 'restore_snapshot', 'warm_snapshot', 'delete_snapshot');
  expected.push('list_input_requests', 'answer_input_request', 'request_input');
  expected.push('search_memory', 'create_bead', 'list_beads', 'claim_bead', 'close_bead');
  for (const name of expected) t.ok(names.includes(name), `${label}: lists ${name}`);

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
  const oneCall = json(
    await call(target, 'start_agent', {
      name: `once-${label}`,
      command: '/bin/sh',
      args: JSON.stringify(['-c', `echo at once over ${label}`]),
      follow_ms: '5000',
    }),
  ) as { agent?: { id: string }; output?: { text: string } };
  t.match(oneCall, { agent: { id: String }, output: { text: `at once over ${label}\n` } }, `${label}: start_agent with follow_ms answers the first output`);

  // From a profile of the manifest: its command, on a terminal, under the name given.
  const greeter = json(await call(target, 'start_agent', { profile: 'greeter', name: `greeter-${label}` })) as { id: string; profile?: string; tty?: boolean };
  t.match(greeter, { profile: 'greeter', tty: true }, `${label}: start_agent from a profile`);
  const greeting = await waitFor(
    `${label} greeter output`,
    async () => {
      const text = String(json(await call(target, 'read_output', { id: greeter.id, follow_ms: '5000' }))['text']);
      return text.includes('greetings') ? text : undefined;
    },
    30_000,
  );
  t.match(greeting, `greetings from the profile of greeter-${label}`, `${label}: the profile's command ran under the name given`);

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

  await files(t, target, label);
  await approvals(t, target, label);
  await inputs(t, target, label);
}

type Checks = Parameters<typeof drive>[0];

/** Workspace files of a running agent through the file tools, and a command exec'd into it that reads one. */
async function files(t: Checks, target: string[], label: string): Promise<void> {
  const host = json(await call(target, 'start_agent', { name: `files-${label}`, command: '/bin/sleep', args: '["600"]' })) as { id: string };
  const text = `written through ${label}`;
  t.match(
    json(await call(target, 'write_file', { id: host.id, path: 'notes/a.txt', content: text })),
    { path: 'notes/a.txt', created: true },
    `${label}: write_file`,
  );
  t.match(
    json(await call(target, 'read_file', { id: host.id, path: 'notes/a.txt' })),
    { path: 'notes/a.txt', encoding: 'utf8', binary: false, truncated: false, size: text.length, content: text, etag: String },
    `${label}: read_file reads it back`,
  );
  t.match(
    json(await call(target, 'read_file', { id: host.id, path: 'notes/a.txt', max_bytes: '7' })),
    { truncated: true, size: text.length, content: 'written' },
    `${label}: read_file stops at max_bytes`,
  );
  t.match(
    json(await call(target, 'write_file', { id: host.id, path: 'notes/b.bin', content: 'AAEC/w==', encoding: 'base64' })),
    { size: 4 },
    `${label}: write_file of base64`,
  );
  t.match(
    json(await call(target, 'read_file', { id: host.id, path: 'notes/b.bin' })),
    { encoding: 'base64', binary: true, content: 'AAEC/w==' },
    `${label}: read_file answers binary as base64`,
  );
  const listed = json(await call(target, 'list_files', { id: host.id, path: 'notes' })) as { entries: Array<{ name: string; type: string }> };
  t.same(listed.entries.map((e) => `${e.type} ${e.name}`).sort(), ['file a.txt', 'file b.bin'], `${label}: list_files`);
  t.match(
    json(await call(target, 'list_files', { id: host.id })),
    { entries: [{ name: 'notes', type: 'dir' }] },
    `${label}: list_files of the directory itself`,
  );
  const outside = await call(target, 'read_file', { id: host.id, path: '../x' });
  t.equal(outside.isError, true, `${label}: a path out of the workspace is a tool error`);
  t.match(outside.content[0]!.text, /^ABX_ERR_FILE_PATH: workspace path "\.\.\/x" is refused/, `${label}: with the API's code and reason`);
  t.match(json(await call(target, 'delete_file', { id: host.id, path: 'notes/b.bin' })), { removed: 1 }, `${label}: delete_file`);
  t.match(
    await call(target, 'read_file', { id: host.id, path: 'notes/b.bin' }),
    { isError: true, content: [{ text: /^ABX_ERR_NOT_FOUND: / }] },
    `${label}: gone`,
  );

  const exec = json(await call(target, 'exec_in_agent', { id: host.id, command: '/bin/cat', args: '["notes/a.txt"]' })) as { id: string; execOf: string };
  t.equal(exec.execOf, host.id, `${label}: exec_in_agent answers the command's record, naming the agent`);
  const seen = await waitFor(
    `${label} exec output`,
    async () => {
      const r = json(await call(target, 'read_output', { id: exec.id, follow_ms: '5000' }));
      return r['ended'] ? r : undefined;
    },
    30_000,
  );
  t.match(seen, { text, ended: { exitCode: 0 } }, `${label}: the command saw the agent's file`);
  t.match(json(await call(target, 'terminate_agent', { id: host.id, grace_ms: '0' })), { id: host.id }, `${label}: terminate_agent`);
}

/** An agent's own request, raised with its token: listed by list_input_requests, answered by answer_input_request, the answer handed to the agent. */
async function inputs(t: Checks, target: string[], label: string): Promise<void> {
  const agent = (await box.api('/v1/agents', { body: { name: `asking-${label}`, command: '/bin/sleep', args: ['600'] } })).json['agent'] as {
    id: string;
    pid: number;
  };
  const token = await waitFor('the agent token', () => tokenOf(agent.pid));
  const raised = await box.api(`/v1/agents/${agent.id}/input-requests`, { auth: token, body: { prompt: `a question over ${label}` } });
  const id = (raised.json['inputRequest'] as { id: string }).id;
  const listed = json(await call(target, 'list_input_requests')) as unknown as Array<{ id: string; prompt: string }>;
  t.match(
    listed.find((r) => r.id === id),
    { prompt: `a question over ${label}` },
    `${label}: list_input_requests shows it`,
  );
  t.match(
    json(await call(target, 'answer_input_request', { id, text: 'forty-two' })),
    { state: 'answered', closed: { answer: { length: 9 } } },
    `${label}: answer_input_request`,
  );
  const own = await box.api(`/v1/agents/${agent.id}/input-requests/${id}`, { auth: token });
  t.match(own.json, { inputRequest: { answer: { text: 'forty-two' } } }, `${label}: the agent reads the answer`);
  t.match(
    await call(target, 'answer_input_request', { id, text: 'again' }),
    { isError: true, content: [{ text: /^ABX_ERR_INPUT_REQUEST_CLOSED: / }] },
    `${label}: an answer counts once`,
  );
  await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' });
}

/** A spawn held by the ask rule: listed by list_approvals, approved by decide_approval, then started. */
async function approvals(t: Checks, target: string[], label: string): Promise<void> {
  const { answer, request } = await heldSpawn(`held-${label}`);
  const listed = json(await call(target, 'list_approvals')) as unknown as Approval[];
  t.match(
    listed.find((a) => a.id === request.id),
    { agent: `held-${label}`, state: 'pending', digest: request.digest },
    `${label}: list_approvals shows the held spawn`,
  );
  const decided = await call(target, 'decide_approval', { id: request.id, decision: 'approve', reason: `approved over ${label}`, digest: request.digest });
  t.notOk(decided.isError, `${label}: decide_approval`);
  t.match(
    json(decided),
    {
      state: 'approved',
      decision: { outcome: 'approved', reason: `approved over ${label}`, scope: 'once', by: { signed: false, actor: { kind: 'api-key' } } },
    },
    `${label}: recorded unsigned, as the key's decision`,
  );
  const spawned = await answer;
  t.equal(spawned.status, 201, `${label}: the held spawn went ahead`);
  const again = await call(target, 'decide_approval', { id: request.id, decision: 'deny' });
  t.match(again, { isError: true, content: [{ text: /^ABX_ERR_APPROVAL_DECIDED: / }] }, `${label}: a decision counts once`);
  await box.api(`/v1/agents/${(spawned.json['agent'] as { id: string }).id}?graceMs=0`, { method: 'DELETE' });
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

  t.match(json(await call(target, 'write_file', { id: agent.id, path: 'own.txt', content: 'own words' })), { created: true }, 'it writes its own files');
  t.match(json(await call(target, 'read_file', { id: agent.id, path: 'own.txt' })), { content: 'own words' }, 'and reads them');
  const other = (await box.api('/v1/agents', { body: { name: 'neighbour', command: '/bin/sleep', args: ['600'] } })).json['agent'] as { id: string };
  t.match(await call(target, 'list_files', { id: other.id }), { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, "not another agent's");
  t.match(
    await call(target, 'exec_in_agent', { id: agent.id, command: '/bin/true' }),
    { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] },
    "exec is the operator's",
  );

  const { answer, request } = await heldSpawn('held-token');
  t.match(await call(target, 'list_approvals'), { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, 'it may not list approvals');
  t.match(await call(target, 'list_input_requests'), { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, 'nor input requests');
  const asked = json(await call(target, 'request_input', { id: agent.id, prompt: 'May I?', wait_sec: '0' })) as { id: string; state: string };
  t.match(asked, { state: 'open', reason: 'explicit' }, 'it asks a person for input as itself');
  t.match(
    await call(target, 'request_input', { id: other.id, prompt: 'As the neighbour?', wait_sec: '0' }),
    { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] },
    'never as another agent',
  );
  t.match(
    await call(target, 'answer_input_request', { id: asked.id, text: 'yes' }),
    { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] },
    'nor answers, not even its own',
  );
  const decided = await call(target, 'decide_approval', { id: request.id, decision: 'approve' });
  t.match(decided, { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, 'nor decide one: the API refuses it and the tool says so');
  t.match((await box.api(`/v1/approvals/${request.id}`)).json, { approval: { state: 'pending' } }, 'the request is still pending');
  await box.api(`/v1/approvals/${request.id}`, { body: { decision: 'deny', reason: 'cleaning up' } });
  t.equal((await answer).status, 403, 'denied by the key, the spawn is refused');
  for (const id of [agent.id, other.id]) await box.api(`/v1/agents/${id}`, { method: 'DELETE' });
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
