// /mcp with the official SDK client on a real box with real agents. read_output: a follow answers what is there at once,
// waits for what comes, ends with the agent's record, never repeats or skips a chunk across calls, and times out to nothing;
// start_agent with follow_ms does the start and the first read in one call. And /mcp answers through the API like any route.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from './support/harness.js';

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
type Read = { text: string; next_after: number; chunks: number; running?: true; ended?: { state: string; exitCode?: number } };

let box: TestServer;
let client: Client;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
  client = new Client({ name: 'agentbox-read-output-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${box.server.apiUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${box.key}` } } }),
  );
});
t.teardown(async () => {
  await client?.close();
  await box?.close();
});

const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => (await client.callTool({ name, arguments: args })) as ToolResult;
const start = async (name: string, script: string): Promise<string> => {
  const r = await call('start_agent', { name, command: '/bin/sh', args: ['-c', script] });
  if (r.isError) throw new Error(`start_agent: ${r.content[0]?.text}`);
  return (JSON.parse(r.content[0]!.text) as { id: string }).id;
};
const read = async (id: string, after: number, followMs: number): Promise<Read> => {
  const r = await call('read_output', { id, after, follow_ms: followMs });
  if (r.isError) throw new Error(`read_output: ${r.content[0]?.text}`);
  return JSON.parse(r.content[0]!.text) as Read;
};

t.test('followed from the start: every line once and in order, then the end with the exit code', async (t) => {
  const id = await start('lines', 'for i in 1 2 3 4 5; do echo "line $i"; sleep 0.05; done; exit 3');
  let after = 0;
  let text = '';
  let last: Read | undefined;
  for (let calls = 0; calls < 100 && !last?.ended; calls++) {
    last = await read(id, after, 5_000);
    t.ok(last.next_after >= after, 'next_after never goes back');
    text += last.text;
    after = last.next_after;
  }
  t.equal(text, 'line 1\nline 2\nline 3\nline 4\nline 5\n', 'each line once, in order');
  t.match(last?.ended, { state: 'failed', exitCode: 3 }, 'the last answer carries the agent’s end (a non-zero exit is failed)');
  t.notOk(last?.running, 'and does not say running');
});

t.test('an agent that ended with its output unread: the output at once, with its end', async (t) => {
  const id = await start('done', 'printf "a\\nb\\nc\\n"');
  // Its end is recorded before it is read (get_agent says so).
  for (let i = 0; i < 200; i++) {
    const r = await call('get_agent', { id });
    if ((JSON.parse(r.content[0]!.text) as { state: string }).state !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  let after = 0;
  let text = '';
  let ended: Read['ended'];
  for (let calls = 0; calls < 10 && !ended; calls++) {
    const r = await read(id, after, 5_000);
    text += r.text;
    after = r.next_after;
    ended = r.ended;
  }
  t.equal(text, 'a\nb\nc\n');
  t.match(ended, { state: 'exited', exitCode: 0 });
  const again = await read(id, after, 5_000);
  t.match(again, { text: '', chunks: 0, next_after: after, ended: { state: 'exited' } }, 'read again from the end: nothing new, and the end');
});

t.test('a silent running agent: nothing once follow_ms has passed, and next_after unchanged', async (t) => {
  const id = await start('silent', 'exec sleep 600');
  t.teardown(() => call('terminate_agent', { id, grace_ms: 0 }));
  const r = await read(id, 0, 300);
  t.same(r, { text: '', next_after: 0, chunks: 0, running: true });
});

t.test('start_agent with follow_ms: the record and the first output in one call, then the rest by read_output', async (t) => {
  const r = await call('start_agent', { name: 'one-call', command: '/bin/sh', args: ['-c', 'echo hello; sleep 0.1; echo world'], follow_ms: 5_000 });
  t.notOk(r.isError, r.content[0]?.text ?? 'start_agent');
  const { agent, output } = JSON.parse(r.content[0]!.text) as { agent: { id: string; name: string; state: string }; output: Read };
  t.match(agent, { name: 'one-call', state: 'running' }, 'the record as a start answers it');
  t.equal(output.text, 'hello\n', 'the first output, waited for');
  t.equal(output.running, true);
  let after = output.next_after;
  let text = output.text;
  let ended: Read['ended'];
  for (let calls = 0; calls < 20 && !ended; calls++) {
    const next = await read(agent.id, after, 5_000);
    text += next.text;
    after = next.next_after;
    ended = next.ended;
  }
  t.equal(text, 'hello\nworld\n', 'read_output goes on from next_after: nothing repeated or lost');
  t.match(ended, { state: 'exited', exitCode: 0 });
});

t.test('start_agent with follow_ms of a silent agent: the record, and no output once follow_ms passed', async (t) => {
  const r = await call('start_agent', { name: 'one-call-silent', command: '/bin/sh', args: ['-c', 'exec sleep 600'], follow_ms: 200 });
  const { agent, output } = JSON.parse(r.content[0]!.text) as { agent: { id: string; state: string }; output: Read };
  t.teardown(() => call('terminate_agent', { id: agent.id, grace_ms: 0 }));
  t.equal(agent.state, 'running');
  t.same(output, { text: '', next_after: 0, chunks: 0, running: true });
  const tooLong = await call('start_agent', { name: 'never', command: '/bin/true', follow_ms: 60_001 });
  t.equal(tooLong.isError, true, 'a follow longer than the tool allows is refused before anything starts');
  t.match(tooLong.content[0]?.text, /follow_ms/);
  const listed = await call('list_agents', {});
  t.notOk(
    (JSON.parse(listed.content[0]!.text) as Array<{ name: string }>).some((a) => a.name === 'never'),
    'and no agent was started',
  );
});

t.test('an agent that does not exist: a tool error with the API’s code', async (t) => {
  const r = await call('read_output', { id: 'nope', follow_ms: 1_000 });
  t.equal(r.isError, true);
  t.match(r.content[0]?.text, /^ABX_ERR_NOT_FOUND: /);
});

t.test('/mcp answers through the API like any route: its request id, the SDK’s refusals, a notification’s 202', async (t) => {
  const post = (body: unknown, accept = 'application/json, text/event-stream') =>
    fetch(`${box.server.apiUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${box.key}`, 'content-type': 'application/json', accept },
      body: JSON.stringify(body),
    });
  const listed = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
  t.equal(listed.status, 200);
  t.match(listed.headers.get('content-type'), /^application\/json/);
  t.ok(listed.headers.get('x-request-id'), 'the request id of the API');
  t.match(await listed.json(), { jsonrpc: '2.0', id: 7, result: { tools: Array } });
  const notAcceptable = await post({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} }, 'application/json');
  t.equal(notAcceptable.status, 406, 'a client that does not accept event streams is refused, as the transport says');
  t.match(await notAcceptable.json(), { jsonrpc: '2.0', error: { code: -32000, message: /Not Acceptable/ } });
  const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  t.equal(notified.status, 202, 'a notification is accepted without an answer');
  t.equal(await notified.text(), '');
});
