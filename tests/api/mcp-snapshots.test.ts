// The snapshot tools over /mcp with the official SDK client on a real box with real agents: snapshot an agent, list, compare,
// fork with start_agent's fromSnapshot, restore in place once it ended, delete; an agent token snapshots its own directory only.
import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
type Snapshot = { id: string; label?: string; agent: { id: string; name: string } };

let box: TestServer;
const clients: Client[] = [];
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
});
t.teardown(async () => {
  for (const c of clients) await c.close();
  await box?.close();
});

/** An MCP client over /mcp with `credential` as its bearer. */
async function connect(credential: string): Promise<(name: string, args?: Record<string, unknown>) => Promise<ToolResult>> {
  const client = new Client({ name: 'agentbox-snapshot-tools-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${box.server.apiUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }),
  );
  clients.push(client);
  return async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult;
}
const json = <T>(r: ToolResult): T => {
  if (r.isError) throw new Error(r.content[0]?.text);
  return JSON.parse(r.content[0]!.text) as T;
};
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';

t.test('snapshot, list, diff, fork, restore, delete: a wrong path undone through the tools', async (t) => {
  const call = await connect(box.key);
  const tools = (await clients[0]!.listTools()).tools.map((x) => x.name);
  for (const name of ['snapshot_agent', 'list_snapshots', 'diff_snapshots', 'restore_snapshot', 'warm_snapshot', 'delete_snapshot'])
    t.ok(tools.includes(name), `lists ${name}`);

  const agent = json<{ id: string; cwd: string }>(
    await call('start_agent', { name: 'explorer', command: '/bin/sh', args: ['-c', 'echo good > plan.txt; exec sleep 120'] }),
  );
  const plan = path.join(box.paths.workspaceDir, agent.cwd, 'plan.txt');
  await waitFor('the agent wrote its plan', async () => (await readFile(plan, 'utf8').catch(() => '')) === 'good\n');

  const good = json<{ snapshot: Snapshot }>(await call('snapshot_agent', { id: agent.id, label: 'good state' })).snapshot;
  t.match(good, { id: /^snp_/, label: 'good state', agent: { id: agent.id, name: 'explorer' } }, 'the snapshot, labelled');
  await writeFile(plan, 'a wrong path\n');
  await writeFile(path.join(box.paths.workspaceDir, agent.cwd, 'junk.txt'), 'junk\n');
  const wrong = json<{ snapshot: Snapshot }>(await call('snapshot_agent', { id: agent.id })).snapshot;

  const listed = json<{ snapshots: Snapshot[] }>(await call('list_snapshots', { agent: agent.id })).snapshots;
  t.same(
    listed.map((s) => s.id),
    [good.id, wrong.id],
    "the agent's, oldest first",
  );
  const diff = json<{ changes: Array<{ path: string; change: string }> }>(await call('diff_snapshots', { from: good.id, to: wrong.id }));
  t.same(diff.changes.map((c) => `${c.change} ${c.path}`).sort(), ['added junk.txt', 'modified plan.txt'], 'what the wrong path changed');

  t.match(json(await call('warm_snapshot', { snapshot: good.id, forks: 1 })), { snapshot: good.id, warm: { wanted: 1 } }, 'a copy built ahead for forks');
  await waitFor(
    'the copy ready',
    async () => json<{ warm: { ready: number } }>(await call('warm_snapshot', { snapshot: good.id, forks: 1 })).warm.ready === 1,
    30_000,
  );
  const fork = json<{ agent: { id: string } }>(
    await call('start_agent', { name: 'retry', command: '/bin/cat', args: ['plan.txt'], fromSnapshot: good.id, follow_ms: 10_000 }),
  );
  t.match(JSON.stringify(fork), /good\\n/, 'a fork of the good state, its output read in the same call');
  t.equal(box.logs.events('SnapshotForked').find((e) => e['agent'] === fork.agent.id)?.['warm'], true, 'it took the copy built ahead');

  t.match(
    await call('restore_snapshot', { id: agent.id, snapshot: good.id }),
    { isError: true, content: [{ text: /^ABX_ERR_CONFLICT: .*running/ }] },
    'refused while the agent runs',
  );
  json(await call('terminate_agent', { id: agent.id, grace_ms: 0 }));
  json(await call('restore_snapshot', { id: agent.id, snapshot: good.id }));
  t.equal(await readFile(plan, 'utf8'), 'good\n', 'back to the good state, in place');
  t.equal(await readFile(path.join(box.paths.workspaceDir, agent.cwd, 'junk.txt')).catch(() => 'gone'), 'gone', 'what the wrong path added is gone');

  const deleted = json<{ freedBytes: number }>(await call('delete_snapshot', { snapshot: wrong.id }));
  t.ok(deleted.freedBytes > 0, 'the bytes only it held are freed');
  t.same(
    json<{ snapshots: Snapshot[] }>(await call('list_snapshots', { agent: agent.id })).snapshots.map((s) => s.id),
    [good.id],
  );
  t.match(await call('delete_snapshot', { snapshot: wrong.id }), { isError: true, content: [{ text: /^ABX_ERR_NOT_FOUND: / }] }, 'deleted once');
  t.match(await call('diff_snapshots', { from: 'snp_x', to: good.id }), { isError: true }, 'an id that is not one: refused by its schema');
});

t.test('an agent token: its own directory only, and nothing of the store beyond', async (t) => {
  const call = await connect(box.key);
  const own = json<{ id: string; pid: number }>(
    await call('start_agent', { name: 'self', command: '/bin/sh', args: ['-c', 'echo mine > mine.txt; exec sleep 120'] }),
  );
  const other = json<{ id: string }>(await call('start_agent', { name: 'neighbour', command: '/bin/sleep', args: ['120'] }));
  const token = await waitFor('the agent token', () => tokenOf(own.pid));
  const asAgent = await connect(token);
  const mine = json<{ snapshot: Snapshot }>(await asAgent('snapshot_agent', { id: own.id, label: 'my own' })).snapshot;
  t.match(mine, { agent: { id: own.id } }, 'its own directory: allowed');
  t.match(await asAgent('snapshot_agent', { id: other.id }), { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, "not another agent's");
  t.match(await asAgent('list_snapshots'), { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, 'listing is the operator’s');
  t.match(await asAgent('delete_snapshot', { snapshot: mine.id }), { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, 'so is deleting');
  t.match(await asAgent('warm_snapshot', { snapshot: mine.id, forks: 1 }), { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] }, 'and warm forks');
  t.match(
    await asAgent('restore_snapshot', { id: own.id, snapshot: mine.id }),
    { isError: true, content: [{ text: /^ABX_ERR_AGENT_SCOPE: / }] },
    'and restoring',
  );
  for (const id of [own.id, other.id]) json(await call('terminate_agent', { id, grace_ms: 0 }));
});
