// The TypeScript client (agentbox/client) against a real box: every route through a named method, typed errors,
// bearer, agent-token and NIP-98 auth, output and event streams, and retries only where they are safe.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { Agentbox, AgentboxError, ROUTE_KEYS, type OutputEvent } from 'agentbox/client';
import { keyProof } from '../../management-api/src/auth/key-proof.js';
import { freePort } from './support/tcp-backend.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

const operator = generateSecretKey();
const toml = `[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n[mesh]\noperator_pubkeys = ["${getPublicKey(operator)}"]\n`;

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml });
});
t.teardown(() => box?.close());

/** Real fetch, with every request it sends noted as "METHOD /path/{template}". */
function recorded(seen: Set<string>, attempts: string[] = []): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    attempts.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    const key = ROUTE_KEYS.find((k) => {
      const [method, template] = k.split(' ') as [string, string];
      const pattern = new RegExp(`^${template.replace(/\{\*\}/g, '.+').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return method === (init?.method ?? 'GET') && pattern.test(url.pathname);
    });
    if (key) seen.add(key);
    return fetch(input, init);
  };
}

/** `record` with its id, which the API's schema leaves optional: a test can go no further without it. */
function withId<T extends { id?: string }>(record: T): T & { id: string } {
  const { id } = record;
  if (typeof id !== 'string') throw new Error(`no id in ${JSON.stringify(record)}`);
  return Object.assign(record, { id });
}

/** Await `p` and hand back the AgentboxError it rejects with. */
async function refusal(p: Promise<unknown>): Promise<AgentboxError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AgentboxError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const seen = new Set<string>();

t.test('every route through a named method, with the bearer key', async (t) => {
  const c = new Agentbox({ url: box.server.apiUrl, auth: { apiKey: box.key }, fetch: recorded(seen) });
  t.match(await c.livez(), { live: true });
  t.match(await c.ready(), { ready: Boolean });
  t.match(await c.health(), { status: String });
  t.match(await c.meta(), { version: String });
  const challenge = randomBytes(32).toString('hex');
  t.equal((await c.keyProof(challenge)).proof, keyProof(box.key, challenge), 'the box proves it holds the key');

  const agent = withId(await c.agents.spawn({ name: 'talker', command: '/bin/sh', args: ['-c', 'echo one; sleep 0.2; echo two'] }));
  t.match(agent, { id: String, name: 'talker' });
  const events: OutputEvent[] = [];
  for await (const e of c.agents.follow(agent.id)) events.push(e);
  t.same(
    events
      .filter((e) => e.type === 'output')
      .map((e) => (e.type === 'output' ? e.chunk.text : ''))
      .join(''),
    'one\ntwo\n',
    'follow yields the output as it comes',
  );
  t.match(events.at(-1), { type: 'end', agent: { id: agent.id, state: 'exited', exitCode: 0 } }, 'then the record');
  t.same((await c.agents.output(agent.id)).map((x) => x.text).join(''), 'one\ntwo\n', 'output reads it after the fact');
  t.ok(
    (await c.agents.list()).some((a) => a.id === agent.id),
    'list',
  );
  t.equal((await c.agents.get(agent.id)).id, agent.id, 'get');
  const sleeper = withId(await c.agents.spawn({ name: 'sleeper', command: '/bin/sleep', args: ['600'] }));
  t.match(await refusal(c.agents.input(sleeper.id, 'x')), { code: 'ABX_ERR_NO_TERMINAL', status: 409 }, 'input: a piped agent has no terminal');

  // Workspace files, then a command exec'd into the agent that reads one of them.
  const written = await c.files.write(sleeper.id, 'notes/a.txt', 'hello files');
  t.match(written, { path: 'notes/a.txt', created: true, size: 11 }, 'files.write');
  t.match(await c.files.list(sleeper.id), { entries: [{ name: 'notes', type: 'dir' }] }, 'files.list of the directory itself');
  t.match(await c.files.list(sleeper.id, 'notes'), { path: 'notes', entries: [{ name: 'a.txt', type: 'file', size: 11 }] }, 'files.list below it');
  const read = await c.files.read(sleeper.id, 'notes/a.txt');
  t.equal(new TextDecoder().decode(read.bytes), 'hello files', 'files.read');
  t.equal(read.etag, (written as { etag: string }).etag, 'with the ETag the write answered');
  const tar = new Uint8Array(await new Response(await c.files.tar(sleeper.id, 'notes')).arrayBuffer());
  t.match(await c.files.untar(sleeper.id, 'copy', tar), { path: 'copy', files: 1 }, 'files.untar of files.tar');
  t.match(await c.files.untar(sleeper.id, '', tar), { path: '', files: 1 }, 'into the directory itself');
  t.match(await refusal(c.files.write(sleeper.id, '', 'x')), { status: 409 }, 'the directory itself is not a file to write');
  t.match(await refusal(c.files.delete(sleeper.id, '')), { code: 'ABX_ERR_FILE_PATH', status: 400 }, 'nor to delete');
  // `.` and `..` reach the box as given (the URL parser would resolve them to another route) and are refused there.
  t.match(await refusal(c.files.read(sleeper.id, '../x')), { code: 'ABX_ERR_FILE_PATH', message: /"\.\.\/x" is refused/ }, "a .. path is the box's refusal");
  t.match(await refusal(c.files.delete(sleeper.id, '..')), { code: 'ABX_ERR_FILE_PATH' }, 'a lone .. too');
  t.match(await refusal(c.files.list(sleeper.id, 'notes/.')), { code: 'ABX_ERR_FILE_PATH' }, 'and a . segment');
  t.equal((await c.agents.get(sleeper.id)).state, 'running', 'the agent route above the files was not reached');
  // A name that is not UTF-8, as the box lists it (its odd byte as a lone surrogate), goes back as its bytes.
  const odd = 'caf\uDCE9.txt';
  t.match(await c.files.write(sleeper.id, `odd/${odd}`, 'latin-1'), { created: true }, 'files.write of a name that is not UTF-8');
  const onDisk = readdirSync(path.join(box.paths.workspaceDir, (await c.agents.get(sleeper.id)).cwd!, 'odd'), { encoding: 'buffer' });
  t.same(onDisk, [Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74])], 'made as the bytes caf\\xe9.txt');
  t.same(
    ((await c.files.list(sleeper.id, 'odd')) as { entries: Array<{ name: string }> }).entries.map((e) => e.name),
    [odd],
    'listed as written',
  );
  t.equal(new TextDecoder().decode((await c.files.read(sleeper.id, `odd/${odd}`)).bytes), 'latin-1', 'read by that name');
  t.match(await c.files.delete(sleeper.id, 'odd', { recursive: true }), { removed: 2 });
  t.match(await c.files.delete(sleeper.id, 'copy', { recursive: true }), { path: 'copy', removed: Number }, 'files.delete');
  // Snapshots: made, listed, read, forked, restored into an ended fork, deleted.
  const snapshot = (await c.snapshots.create(sleeper.id, { label: 'notes' })).snapshot!;
  t.match(snapshot, { id: /^snp_/, label: 'notes', stats: { files: 2 } }, 'snapshots.create');
  t.ok(
    (await c.snapshots.list()).snapshots?.some((s) => s.id === snapshot.id),
    'snapshots.list',
  );
  t.match(await c.snapshots.get(snapshot.id!), { snapshot: { id: snapshot.id, sharing: { storedBytes: 11 } } }, 'snapshots.get');
  await c.files.write(sleeper.id, 'notes/later.txt', 'later');
  const later = (await c.snapshots.create(sleeper.id)).snapshot!;
  t.match(
    await c.snapshots.diff(later.id!, snapshot.id!),
    { from: snapshot.id, to: later.id, counts: { added: 1, deleted: 0, modified: 0 }, changes: [{ path: 'notes/later.txt', change: 'added', size: 5 }] },
    'snapshots.diff',
  );
  await c.files.write(sleeper.id, 'notes/more.txt', 'more');
  const latest = (await c.snapshots.create(sleeper.id)).snapshot!;
  const paged = await c.snapshots.diff(latest.id!, snapshot.id!, { limit: 1 });
  t.same([paged.changes?.map((x) => x.path), paged.truncated], [['notes/later.txt'], true], 'a page of one');
  const next = await c.snapshots.diff(latest.id!, snapshot.id!, { limit: 1, cursor: paged.nextCursor! });
  t.same([next.changes?.map((x) => x.path), next.truncated, next.nextCursor], [['notes/more.txt'], false, undefined], 'the next page, by its cursor: the last');
  t.ok(
    ((await c.snapshots.listFiles(snapshot.id!)) as { entries: Array<{ name: string }> }).entries.some((e) => e.name === 'notes'),
    'snapshots.listFiles of the top',
  );
  const listed = (await c.snapshots.listFiles(later.id!, 'notes')) as { entries: Array<{ name: string }> };
  t.ok(
    listed.entries.some((e) => e.name === 'later.txt'),
    'snapshots.listFiles of a directory',
  );
  const snapRead = await c.snapshots.readFile(snapshot.id!, 'notes/a.txt');
  t.equal(new TextDecoder().decode(snapRead.bytes), 'hello files', 'snapshots.readFile');
  t.equal((await c.snapshots.readFile(snapshot.id!, 'notes/a.txt', { 'if-none-match': snapRead.etag! })).status, 304, 'and If-None-Match');
  t.match(await refusal(c.snapshots.readFile(snapshot.id!, 'notes/later.txt')), { code: 'ABX_ERR_NOT_FOUND', status: 404 }, 'not in the earlier one');
  const snapTar = Buffer.from(await new Response(await c.snapshots.tar(later.id!, 'notes')).arrayBuffer());
  t.match(execFileSync('tar', ['-tf', '-'], { input: snapTar, encoding: 'utf8' }), /later\.txt/, 'snapshots.tar');
  await c.snapshots.delete(later.id!);
  t.match(await c.snapshots.warm(snapshot.id!, 1), { snapshot: snapshot.id, warm: { wanted: 1 } }, 'snapshots.warm');
  const fork = withId(await c.agents.spawn({ name: 'forked', command: '/bin/cat', args: ['notes/a.txt'], fromSnapshot: snapshot.id! }));
  for await (const e of c.agents.follow(fork.id)) if (e.type === 'end') break;
  t.same((await c.agents.output(fork.id)).map((x) => x.text).join(''), 'hello files', 'a fork reads the snapshot');
  t.match(await c.snapshots.restore(fork.id, snapshot.id!), { restored: snapshot.id, files: 2 }, 'snapshots.restore into the ended fork');
  t.match(await c.snapshots.delete(snapshot.id!), { deleted: snapshot.id }, 'snapshots.delete');
  const cat = withId(await c.agents.exec(sleeper.id, { command: '/bin/cat', args: ['notes/a.txt'] }));
  t.match(cat, { id: String, execOf: sleeper.id }, "exec: the command's own record, naming the agent");
  const catEvents: OutputEvent[] = [];
  for await (const e of c.agents.follow(cat.id)) catEvents.push(e);
  t.match(catEvents.at(-1), { type: 'end', agent: { exitCode: 0 } }, 'it ran to its end');
  t.same((await c.agents.output(cat.id)).map((x) => x.text).join(''), 'hello files', "in the agent's directory");
  t.match(await c.agents.terminate(sleeper.id, { graceMs: 100 }), { id: sleeper.id }, 'terminate');

  const { bead } = await c.beads.create({ title: 'typed' });
  t.match(await c.beads.claim(bead!.id!, 'me'), { claimed: true });
  t.ok((await c.beads.list()).items?.some((b) => b.id === bead!.id));
  t.same((await c.beads.ready()).items, [], 'nothing ready once claimed');
  t.match(await c.beads.get(bead!.id!), { bead: { status: 'claimed' } });
  t.match(await c.beads.close(bead!.id!, { outcome: 'success' }), { bead: { status: 'closed' } });

  const appended = await c.events.append({ kind: 'client.test', data: { n: 1 } });
  t.match(appended, { event: { kind: 'client.test' } });
  t.ok((await c.events.query({ kind: ['client.test'] })).items?.length, 'query by kind');
  const live = new AbortController();
  for await (const e of c.events.stream({ kind: ['client.test'], since: '2000-01-01T00:00:00Z' }, { signal: live.signal })) {
    t.match(e, { kind: 'client.test' }, 'the live stream replays from since');
    live.abort();
    break;
  }
  // The log's checkpoint and proofs: answered or refused, each is typed.
  for (const p of [
    () => c.events.signCheckpoint(),
    () => c.events.checkpoint(),
    () => c.events.inclusionProof({ index: 0, size: 1 }),
    () => c.events.consistencyProof({ from: 1, to: 1 }),
  ])
    await p().catch((err) => t.type(err, AgentboxError));

  // Approvals: none pending on a box without a policy; deciding an unknown request is a typed refusal.
  t.match(await c.approvals.list(), { approvals: [] }, 'approvals list');
  t.match(await refusal(c.approvals.get('apr_000000000000000000')), { code: 'ABX_ERR_APPROVAL_NOT_FOUND', status: 404 });
  t.match(await refusal(c.approvals.decide('apr_000000000000000000', { decision: 'deny' })), { code: 'ABX_ERR_APPROVAL_NOT_FOUND', status: 404 });
  const queue = new AbortController();
  for await (const m of c.approvals.stream({ signal: queue.signal })) {
    t.equal(m.event, 'snapshot', 'the approvals stream opens with a snapshot');
    queue.abort();
    break;
  }

  // Input requests: none open; an agent's own request raised, answered and read back; an unknown one is a typed refusal.
  t.match(await c.inputRequests.list(), { inputRequests: [] }, 'input requests list');
  const asker = withId(await c.agents.spawn({ name: 'asker', command: '/bin/sleep', args: ['30'] }));
  const raised = (await c.inputRequests.raise(asker.id, 'Which branch?')).inputRequest!;
  t.match(await c.inputRequests.get(raised.id!), { inputRequest: { state: 'open', reason: 'explicit' } });
  t.match(await c.inputRequests.answer(raised.id!, { text: 'main' }), { inputRequest: { state: 'answered' } });
  t.match(await c.inputRequests.own(asker.id, raised.id!, { wait: 1 }), { inputRequest: { answer: { text: 'main' } } });
  t.match(await refusal(c.inputRequests.withdraw(asker.id, raised.id!)), { code: 'ABX_ERR_INPUT_REQUEST_CLOSED', status: 409 });
  t.match(await refusal(c.inputRequests.get('inp_000000000000000000')), { code: 'ABX_ERR_INPUT_REQUEST_NOT_FOUND', status: 404 });
  await c.agents.terminate(asker.id, { graceMs: 100 });

  // Slots that are off, the egress proxy absent: typed refusals, routes reached all the same.
  for (const p of [
    () => c.memory.put('notes', { text: 'x' }),
    () => c.memory.list('notes'),
    () => c.memory.search('notes', { text: 'x', k: 1 }),
    () => c.memory.get('notes', 'm1'),
    () => c.memory.delete('notes', 'm1'),
    () => c.pods.get('a/b.txt'),
    () => c.pods.put('a/b.txt', 'hello', 'text/plain'),
    () => c.pods.delete('a/b.txt'),
  ]) {
    t.match(await refusal(p()), { code: 'ABX_ERR_ADAPTER_OFF', status: 503 }, 'an off slot is ABX_ERR_ADAPTER_OFF');
  }
  t.match(await refusal(c.egress.get()), { code: 'ABX_ERR_EGRESS_UNAVAILABLE', status: 503 });
  t.match(await refusal(c.egress.put({ allow_domains: ['example.org'], allow_ports: [443] })), { status: 503 });
  const dashboard = new AbortController();
  await (async () => {
    for await (const m of c.stream('GET /v1/dashboard/stream', { query: { topics: 'agents' } }, { signal: dashboard.signal })) {
      t.match(m, { data: String }, 'the generic stream reads any SSE route');
      dashboard.abort();
      break;
    }
  })().catch((err) => t.type(err, AgentboxError));

  t.same(
    ROUTE_KEYS.filter((k) => !seen.has(k)),
    [],
    'every route of the generated types was called (a new route needs a method on Agentbox and a call here)',
  );
});

t.test('errors carry the API code, status, message and request id', async (t) => {
  const c = new Agentbox({ url: box.server.apiUrl, auth: { apiKey: box.key } });
  const missing = await refusal(c.agents.get('no-such-agent'));
  t.match(missing, { name: 'AgentboxError', code: 'ABX_ERR_NOT_FOUND', status: 404, message: /no-such-agent/, requestId: String });
  t.match(await refusal(c.beads.create({ title: '' })), { code: 'ABX_ERR_VALIDATION', status: 400 });
  t.match(await refusal(new Agentbox({ url: box.server.apiUrl }).meta()), { code: 'ABX_ERR_AUTH_REQUIRED', status: 401 });
  t.match(await refusal(new Agentbox({ url: box.server.apiUrl, auth: { apiKey: 'wrong' } }).meta()), { code: 'ABX_ERR_AUTH_INVALID' });
  t.throws(() => new Agentbox({ url: 'not a url' }), { code: 'ABX_CLIENT_INPUT', message: /not an absolute URL/ });
  t.match(await refusal(c.agents.get('')), { code: 'ABX_CLIENT_INPUT', message: /path parameter id is missing/ });
});

t.test("an agent token sees only its agent's scope", async (t) => {
  const c = new Agentbox({ url: box.server.apiUrl, auth: { apiKey: box.key } });
  const agent = withId(await c.agents.spawn({ name: 'scoped', command: '/bin/sleep', args: ['600'] }));
  const token = await waitFor('its token', async () => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${agent.pid}/environ`, 'utf8'))?.[1]);
  const mine = new Agentbox({ url: box.server.apiUrl, auth: { agentToken: token } });
  t.equal((await mine.agents.get(agent.id)).id, agent.id, 'its own record');
  t.match(await refusal(mine.agents.list()), { code: 'ABX_ERR_AGENT_SCOPE', status: 403 }, 'not the list');
  await c.agents.terminate(agent.id, { graceMs: 100 });
});

t.test('NIP-98: a signer of an operator key, each attempt signed anew', async (t) => {
  const signed: string[] = [];
  const c = new Agentbox({
    url: box.server.apiUrl,
    auth: {
      nip98: (template) => {
        signed.push(template.tags.map((x) => x.join('=')).join(' '));
        return finalizeEvent(template, operator);
      },
    },
  });
  t.match(await c.meta(), { version: String }, 'a GET');
  t.match(await c.events.append({ kind: 'client.nip98', data: {} }), { event: { kind: 'client.nip98' } }, 'a POST with its payload hash');
  t.match(signed[1], /^u=http:\/\/127\.0\.0\.1:\d+\/v1\/events method=POST payload=[0-9a-f]{64}$/);
  const stranger = new Agentbox({ url: box.server.apiUrl, auth: { nip98: (template) => finalizeEvent(template, generateSecretKey()) } });
  t.match(await refusal(stranger.meta()), { code: 'ABX_ERR_AUTH_INVALID', status: 401 }, 'an unlisted key is refused');
});

t.test('retries: GETs on connection errors, never a POST', async (t) => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const attempts: string[] = [];
  const c = new Agentbox({ url: closed, auth: { apiKey: 'k' }, fetch: recorded(new Set(), attempts), retries: 2 });
  t.match(await refusal(c.meta()), { code: 'ABX_CLIENT_UNREACHABLE', status: 0, message: /cannot reach/ });
  t.equal(attempts.length, 3, 'a GET is tried three times');
  attempts.length = 0;
  t.match(await refusal(c.beads.create({ title: 'x' })), { code: 'ABX_CLIENT_UNREACHABLE' });
  t.equal(attempts.length, 1, 'a POST once');
  attempts.length = 0;
  const off = new Agentbox({ url: box.server.apiUrl, auth: { apiKey: box.key }, fetch: recorded(new Set(), attempts) });
  t.match(await refusal(off.memory.list('notes')), { code: 'ABX_ERR_ADAPTER_OFF' });
  t.equal(attempts.length, 1, 'a 503 without Retry-After is not retried');
});
