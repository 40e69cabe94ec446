// `agentbox events verify` on a real event log written by events/local-jsonl, then corrupted:
// exit codes, the first bad line named (file, line, why), --json, a segment alone, --help.
import t from 'tap';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalJsonlEvents } from '../../../management-api/src/adapters/events/local-jsonl.js';
import { runAgentbox } from '../../helpers/cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-verify-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const dir = path.join(root, 'var/lib/agentbox/events');

/** Write `n` events through the real adapter, rotating every ~600 bytes. */
async function writeLog(n: number): Promise<string[]> {
  const log = new LocalJsonlEvents({ dir, maxFileBytes: 600 });
  await log.connect(new AbortController().signal);
  for (let i = 0; i < n; i++) await log.append([{ kind: 'test.verify', source: 'cli-test', data: { i } }]);
  await log.close();
  return readdirSync(dir).sort();
}

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean);

t.test('an intact log: exit 0, human summary and --json; --root and a PATH agree', async (t) => {
  const files = await writeLog(12);
  t.ok(files.length >= 3, `the log rotated (${files.join(', ')})`);
  const human = runAgentbox(['events', 'verify', '--root', root]);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, new RegExp(`${dir}: intact, 12 events in ${files.length} files; head seq 12, hash [0-9a-f]{64}`));
  const json = runAgentbox(['events', 'verify', '--json', dir]);
  t.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as Record<string, unknown>;
  t.match(report, { ok: true, path: dir, files: files.length, events: 12, head: { seq: 12 } });
  t.notOk('firstBad' in report);
  // The environment's root is the default.
  t.equal(runAgentbox(['events', 'verify'], { env: { ...process.env, AGENTBOX_ROOT: root } }).code, 0);

  // A later segment alone: checked from its own first line.
  const second = path.join(dir, files[1]!);
  const alone = runAgentbox(['events', 'verify', '--json', second]);
  t.equal(alone.code, 0, alone.stderr);
  t.match(JSON.parse(alone.stdout), { ok: true, files: 1, events: lines(second).length });
});

t.test('a torn tail is reported but the log is intact', async (t) => {
  const files = readdirSync(dir).sort();
  const last = path.join(dir, files[files.length - 1]!);
  const before = readFileSync(last);
  t.teardown(() => writeFileSync(last, before));
  appendFileSync(last, '{"seq":13,"id":"tor');
  const r = runAgentbox(['events', 'verify', dir]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /19 bytes after the last newline: an append cut short by a crash/);
});

t.test('an edited line: exit 1 naming the file, the line number and what is wrong', async (t) => {
  const files = readdirSync(dir).sort();
  const target = path.join(dir, files[1]!);
  const original = readFileSync(target, 'utf8');
  t.teardown(() => writeFileSync(target, original));
  const edited = lines(target);
  const seq = (JSON.parse(edited[1]!) as { seq: number }).seq;
  edited[1] = edited[1]!.replace('"source":"cli-test"', '"source":"forged"');
  writeFileSync(target, `${edited.join('\n')}\n`);

  const r = runAgentbox(['events', 'verify', '--root', root]);
  t.equal(r.code, 1);
  t.equal(r.stdout, '');
  t.match(r.stderr, `${target}:2: seq ${seq}: hash mismatch: the line was edited`);
  t.match(r.stderr, `the chain is intact up to seq ${seq - 1} (${seq - 1} events before this line)`);
  const json = runAgentbox(['events', 'verify', '--json', '--root', root]);
  t.equal(json.code, 1);
  t.match(JSON.parse(json.stdout), { ok: false, events: seq - 1, firstBad: { file: files[1], line: 2, seq, reason: /hash mismatch/ } });
});

t.test('a removed line and a garbled line are named at the line that no longer follows', async (t) => {
  const files = readdirSync(dir).sort();
  const target = path.join(dir, files[1]!);
  const original = readFileSync(target, 'utf8');
  t.teardown(() => writeFileSync(target, original));
  const kept = lines(target);
  const seqOf = (line: string): number => (JSON.parse(line) as { seq: number }).seq;
  writeFileSync(target, `${kept.slice(1).join('\n')}\n`);
  const removed = runAgentbox(['events', 'verify', dir]);
  t.equal(removed.code, 1);
  t.match(removed.stderr, `${target}:1: seq ${seqOf(kept[1]!)}: prev does not match the hash of the line before (seq ${seqOf(kept[0]!) - 1})`);

  writeFileSync(target, `${[kept[0], '{"seq":1,"not":"an event"}', ...kept.slice(2)].join('\n')}\n`);
  const garbled = runAgentbox(['events', 'verify', target]);
  t.equal(garbled.code, 1);
  t.match(garbled.stderr, `${target}:2: malformed line: id is not a string`);
});

t.test('usage and unreadable logs exit 2', async (t) => {
  const help = runAgentbox(['events', 'verify', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /Usage: agentbox events verify \[--root DIR \| PATH\] \[--against CHECKPOINT \[--key KEY\] \[--witness-key KEY\]\] \[--json\]/);
  t.match(runAgentbox(['events', '--help']).stdout, /events verify/);

  const both = runAgentbox(['events', 'verify', '--root', root, dir]);
  t.equal(both.code, 2);
  t.match(both.stderr, /either --root DIR or a PATH, not both/);
  t.equal(runAgentbox(['events', 'verify', dir, dir]).code, 2);
  t.equal(runAgentbox(['events', 'verify', '--bogus']).code, 2);

  const missing = runAgentbox(['events', 'verify', '--root', path.join(root, 'nowhere')]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot read the event log .*nowhere\/var\/lib\/agentbox\/events: no such file or directory; pass --root DIR/);

  const empty = path.join(root, 'empty');
  mkdirSync(empty);
  const none = runAgentbox(['events', 'verify', empty]);
  t.equal(none.code, 2);
  t.match(none.stderr, /holds no event log segments/);
});
