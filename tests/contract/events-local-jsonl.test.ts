// events/local-jsonl through the resolver: the events contract, plus what only the local log has
// (the hash chain and its verification, group commit, rotation, torn tails, failed writes).
import t from 'tap';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AdapterModule } from '../../management-api/src/adapters/adapter.js';
import type { EventsAdapter } from '../../management-api/src/adapters/events/events-adapter.js';
import { LocalJsonlEvents } from '../../management-api/src/adapters/events/local-jsonl.js';
import { verifyEventLog } from '../../management-api/src/adapters/events/log-verify.js';
import { waitFor } from '../helpers/wait.js';
import { eventsContract } from './events.contract.js';
import { onlySlot, startSlot, type HarnessOptions } from './pods-harness.js';

const manifest = onlySlot('events', 'local-jsonl');
const FAST = { reconnectInitialMs: 20, reconnectMaxMs: 100, healthIntervalMs: 50 };
const logDir = (stateDir: string) => path.join(stateDir, 'events');
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** The real implementation with small segments, so rotation happens within a test. */
function smallSegments(maxFileBytes: number): AdapterModule<EventsAdapter> {
  return { ADAPTER: 'events/local-jsonl', CONTRACT_VERSION: '1.0.0', create: (ctx) => new LocalJsonlEvents({ dir: logDir(ctx.paths.stateDir), maxFileBytes }) };
}

async function start(options: HarnessOptions = {}) {
  return startSlot('events', manifest, options);
}

t.test('contract', async (t) => {
  eventsContract(t, () => start());
});

t.test('each line chains to the one before; verify accepts the log and reports its head', async (t) => {
  const h = await start();
  t.teardown(() => h.close());
  const acked = await h.ops.append(Array.from({ length: 20 }, (_, i) => ({ kind: 'test.chain', source: 't', data: { i } })));
  const [file] = readdirSync(logDir(h.paths.stateDir));
  t.equal(file, 'events-000001.jsonl');
  const parsed = lines(path.join(logDir(h.paths.stateDir), file!)).map((l) => JSON.parse(l) as { seq: number; prev: string; hash: string });
  t.equal(parsed[0]!.prev, '0'.repeat(64), 'the first line chains to the genesis hash');
  t.ok(
    parsed.every((e, i) => i === 0 || e.prev === parsed[i - 1]!.hash),
    'every later line names the hash of the one before',
  );
  const report = await verifyEventLog(logDir(h.paths.stateDir));
  t.match(report, { ok: true, files: 1, events: 20, head: { seq: acked.at(-1)!.seq, hash: parsed.at(-1)!.hash } });
});

t.test('verify names the first bad line when a line is edited, removed, reordered or garbled', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-tamper-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const h = await start({ root });
  await h.ops.append(Array.from({ length: 6 }, (_, i) => ({ kind: 'test.tamper', source: 't', data: { amount: i } })));
  await h.close();
  const file = path.join(logDir(h.paths.stateDir), 'events-000001.jsonl');
  const pristine = lines(file);
  const tamper = async (name: string, edit: (ls: string[]) => string[], line: number, reason: RegExp) => {
    writeFileSync(file, `${edit([...pristine]).join('\n')}\n`);
    const report = await verifyEventLog(logDir(h.paths.stateDir));
    t.match(report, { ok: false, firstBad: { file: 'events-000001.jsonl', line, reason } }, name);
    t.equal(report.events, line - 1, `${name}: the lines before it verified`);
  };
  await tamper('an edited payload', (ls) => ls.with(3, ls[3]!.replace('"amount":3', '"amount":300')), 4, /hash mismatch/);
  await tamper('a removed line', (ls) => ls.toSpliced(2, 1), 3, /prev does not match/);
  await tamper('two swapped lines', (ls) => ([ls[1], ls[2]] = [ls[2]!, ls[1]!]) && ls, 2, /prev does not match/);
  await tamper('a garbled line', (ls) => ls.with(4, '{"seq":5,'), 5, /malformed/);
  await tamper('a line inserted from elsewhere', (ls) => ls.toSpliced(1, 0, pristine[4]!), 2, /prev does not match/);
  writeFileSync(file, `${pristine.join('\n')}\n`);
  t.match(await verifyEventLog(logDir(h.paths.stateDir)), { ok: true, events: 6 }, 'the restored log verifies again');
});

t.test('rotation by size: the chain and the seq continue across files and restarts; a missing file is detected', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-rotate-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const opts = { root, overrides: { events: smallSegments(2048) } };
  const first = await start(opts);
  const acked = [];
  for (let i = 0; i < 40; i++) acked.push(...(await first.ops.append([{ kind: i % 2 ? 'test.odd' : 'test.even', source: 't', data: { i } }])));
  await first.close();
  const second = await start(opts);
  t.teardown(() => second.close());
  acked.push(...(await second.ops.append([{ kind: 'test.odd', source: 't', data: { i: 40 } }])));
  t.equal(acked.at(-1)!.seq, acked.at(-2)!.seq + 1, 'seq continues after a restart');
  const dir = logDir(second.paths.stateDir);
  const files = readdirSync(dir).sort();
  t.ok(files.length >= 4, `the log rotated (${files.length} files)`);
  for (const f of files) t.ok(readFileSync(path.join(dir, f)).length <= 2048 * 2, `${f} stays near the size limit`);
  t.match(await verifyEventLog(dir), { ok: true, files: files.length, events: 41 });

  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await second.ops.query({ kinds: ['test.odd'], limit: 7, ...(cursor ? { cursor } : {}) });
    pages.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  t.same(
    pages.map((e) => e.seq),
    acked.filter((e) => e.kind === 'test.odd').map((e) => e.seq),
    'a query pages across files',
  );

  const middle = path.join(dir, files[1]!);
  const saved = readFileSync(middle);
  rmSync(middle);
  t.match(
    await verifyEventLog(dir),
    { ok: false, firstBad: { file: files[2], line: 1, reason: /prev does not match/ } },
    'a deleted file breaks the chain at the next one',
  );
  writeFileSync(middle, saved);
});

t.test('group commit: concurrent appends share fsyncs, and none resolves before its line is on disk', async (t) => {
  const h = await start();
  t.teardown(() => h.close());
  const adapter = h.resolver.supervisors.get('events')!.adapter as LocalJsonlEvents;
  const file = path.join(logDir(h.paths.stateDir), 'events-000001.jsonl');
  const before = adapter.stats()!.flushes;
  const onDiskAtResolve: boolean[] = [];
  await Promise.all(
    Array.from({ length: 400 }, (_, i) =>
      h.ops.append([{ kind: 'test.group', source: 't', data: { i } }]).then(([e]) => {
        if (i % 40 === 0) onDiskAtResolve.push(readFileSync(file, 'utf8').includes(`"id":"${e!.id}"`));
      }),
    ),
  );
  const flushes = adapter.stats()!.flushes - before;
  t.ok(flushes >= 1 && flushes < 400, `400 appends took ${flushes} fsync rounds`);
  t.same(onDiskAtResolve, Array(10).fill(true), 'each sampled event was in the file when its append resolved');
});

t.test('a torn last line left by a crash is discarded at the next start; the chain goes on', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-torn-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const h = await start({ root });
  const acked = await h.ops.append([
    { kind: 'test.torn', source: 't' },
    { kind: 'test.torn', source: 't' },
  ]);
  await h.close();
  const file = path.join(logDir(h.paths.stateDir), 'events-000001.jsonl');
  appendFileSync(file, '{"seq":3,"id":"half-writ');
  t.match(await verifyEventLog(logDir(h.paths.stateDir)), { ok: true, events: 2, incompleteTailBytes: 24 }, 'verify reports the torn tail as unacknowledged');
  const again = await start({ root });
  t.teardown(() => again.close());
  const [next] = await again.ops.append([{ kind: 'test.torn', source: 't' }]);
  t.equal(next!.seq, acked[1]!.seq + 1);
  t.match(await verifyEventLog(logDir(h.paths.stateDir)), { ok: true, events: 3 });
  t.notOk(readFileSync(file, 'utf8').includes('half-writ'), 'the partial bytes are gone');
});

t.test('a full disk fails the append with a clear error and degrades the slot; nothing is acknowledged', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-full-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const dir = path.join(root, 'var/lib/agentbox/events');
  mkdirSync(dir, { recursive: true });
  // The kernel's always-full device stands in for a full volume: writes fail with ENOSPC.
  symlinkSync('/dev/full', path.join(dir, 'events-000001.jsonl'));
  const h = await start({ root, timing: { ...FAST, reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 } });
  t.teardown(() => h.close());
  t.equal(h.state(), 'healthy');
  await t.rejects(h.ops.append([{ kind: 'test.full', source: 't' }]), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /ENOSPC/ });
  t.equal(h.state(), 'degraded', 'the failure degrades the slot at once');
  await t.rejects(h.ops.append([{ kind: 'test.full', source: 't' }]), { code: 'ABX_ERR_ADAPTER_DEGRADED' }, 'later appends are refused, not lost silently');
});

t.test('a write on a broken descriptor fails the batch; the slot reconnects and the log stays consistent', async (t) => {
  const h = await start({ timing: FAST });
  t.teardown(() => h.close());
  const kept = await h.ops.append([{ kind: 'test.ebadf', source: 't', data: { n: 1 } }]);
  const file = path.join(logDir(h.paths.stateDir), 'events-000001.jsonl');
  const fd = readdirSync('/proc/self/fd')
    .map(Number)
    .find((n) => {
      try {
        return readlinkSync(`/proc/self/fd/${n}`) === file;
      } catch {
        return false;
      }
    });
  t.type(fd, 'number', 'found the log descriptor');
  closeSync(fd!);
  // Take the freed number at once with a read-only file, so the log's next write is refused (EBADF).
  const standIn = openSync('/dev/null', 'r');
  t.equal(standIn, fd, 'the descriptor number now refers to a read-only file');
  const lost = Promise.all([
    h.ops.append([{ kind: 'test.ebadf', source: 't', data: { n: 2 } }]),
    h.ops.append([{ kind: 'test.ebadf', source: 't', data: { n: 3 } }]),
  ]);
  await t.rejects(lost, { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /EBADF|cannot be appended/ });
  await waitFor('the slot to reconnect', () => h.state() === 'healthy', 5_000);
  const after = await h.ops.append([{ kind: 'test.ebadf', source: 't', data: { n: 4 } }]);
  t.equal(after[0]!.seq, kept[0]!.seq + 1, 'the rejected appends used no seq');
  const report = await verifyEventLog(logDir(h.paths.stateDir));
  t.match(report, { ok: true, events: 2 }, 'only acknowledged events are in the log, and it verifies');
});

t.test('a subscriber that stops reading is ended with an overflow error instead of growing without bound', async (t) => {
  const h = await start();
  t.teardown(() => h.close());
  const live = await h.ops.subscribe({ kinds: ['test.flood'] }, new AbortController().signal);
  for (let i = 0; i < 11; i++) await h.ops.append(Array.from({ length: 1000 }, () => ({ kind: 'test.flood', source: 't' })));
  const iterator = live[Symbol.asyncIterator]();
  await t.rejects(iterator.next(), { name: 'SubscriberOverflowError', message: /query from there and subscribe again/ });
});

t.test('recovery: an empty newest segment takes the head from the one before; a tampered last line refuses to open', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-recover-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await start({ root });
  const acked = await first.ops.append([
    { kind: 'test.recover', source: 't' },
    { kind: 'test.recover', source: 't' },
  ]);
  await first.close();
  const dir = path.join(root, 'var/lib/agentbox/events');
  // A rotation that crashed before its first write leaves an empty newest segment.
  writeFileSync(path.join(dir, 'events-000002.jsonl'), '');
  const second = await start({ root, timing: { reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 } });
  const [next] = await second.ops.append([{ kind: 'test.recover', source: 't' }]);
  t.equal(next!.seq, acked[1]!.seq + 1, 'the chain continues from the older segment');
  t.match(await verifyEventLog(dir), { ok: true, files: 2, events: 3 });
  await second.close();

  const file = path.join(dir, 'events-000002.jsonl');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"source":"t"', '"source":"forged"'));
  const third = await start({ root, timing: { reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 } });
  t.teardown(() => third.close());
  t.equal(third.state(), 'degraded', 'appending onto a tampered line is refused');
  t.match(third.reason(), /events-000002\.jsonl: last line \(seq 3\): hash mismatch/);
});

t.test('verify names malformed lines of every kind', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-events-malformed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const h = await start({ overrides: { events: { ADAPTER: 'events/local-jsonl', CONTRACT_VERSION: '1.0.0', create: () => new LocalJsonlEvents({ dir }) } } });
  await h.ops.append([{ kind: 'test.malformed', source: 't', data: { a: 1 } }]);
  await h.close();
  const file = path.join(dir, 'events-000001.jsonl');
  const good = JSON.parse(lines(file)[0]!) as Record<string, unknown>;
  const variants: Array<[string, string, RegExp]> = [
    ['not JSON', 'seq=1', /not valid JSON/],
    ['an array', '[1,2]', /not a JSON object/],
    ['seq zero', JSON.stringify({ ...good, seq: 0 }), /seq is not a positive integer/],
    ['no kind', JSON.stringify({ ...good, kind: undefined }), /kind is not a string/],
    ['data an array', JSON.stringify({ ...good, data: [] }), /data is not an object/],
    ['short prev', JSON.stringify({ ...good, prev: 'abc' }), /prev is not a sha256/],
    ['upper-case hash', JSON.stringify({ ...good, hash: String(good['hash']).toUpperCase() }), /hash is not a sha256/],
  ];
  for (const [name, line, reason] of variants) {
    writeFileSync(file, `${line}\n`);
    t.match(await verifyEventLog(dir), { ok: false, firstBad: { file: 'events-000001.jsonl', line: 1, reason } }, name);
  }
  writeFileSync(file, `${JSON.stringify(good)}\n`);
  t.match(await verifyEventLog(dir), { ok: true, events: 1 }, 'the original line verifies');
});

t.test('closing the slot finishes appends already accepted; later ones are refused', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-close-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const h = await start({ root });
  const adapter = h.resolver.supervisors.get('events')!.adapter as LocalJsonlEvents;
  const pending = Array.from({ length: 300 }, (_, i) => adapter.append([{ kind: 'test.close', source: 't', data: { i } }]));
  await h.close();
  const settled = await Promise.allSettled(pending);
  t.equal(settled.filter((r) => r.status === 'fulfilled').length, 300, 'every append accepted before the close was written');
  await t.rejects(adapter.append([{ kind: 'test.close', source: 't' }]), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE' });
  t.match(await verifyEventLog(path.join(root, 'var/lib/agentbox/events')), { ok: true, events: 300 });
});
