// `agentbox events verify --against CHECKPOINT` on a real log written by events/local-jsonl: an
// intact log passes; a truncated log and a rewritten log (its chain rebuilt, so the chain alone
// passes) are caught with exit 1; a checkpoint that does not verify with the key is exit 2.
import t from 'tap';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalJsonlEvents } from '../../../management-api/src/adapters/events/local-jsonl.js';
import { decodeLine, encodeLine, GENESIS_HASH, toStored } from '../../../management-api/src/adapters/events/hash-chain.js';
import { generateSignerKey, parseSignerKey } from '../../../management-api/src/tlog/signed-note.js';
import { runAgentbox } from '../../helpers/cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentbox-verify-against-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const dir = path.join(root, 'var/lib/agentbox/events');
const checkpoint = path.join(root, 'copied-checkpoint');

const segments = (): string[] =>
  readdirSync(dir)
    .filter((f) => /^events-\d+\.jsonl$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
const snapshot = (): Map<string, string> => new Map(segments().map((f) => [f, readFileSync(f, 'utf8')]));
function restore(saved: Map<string, string>): void {
  for (const f of segments()) if (!saved.has(f)) rmSync(f);
  for (const [f, text] of saved) writeFileSync(f, text);
}

t.before(async () => {
  const log = new LocalJsonlEvents({
    dir,
    maxFileBytes: 2048,
    transparency: { keyFile: path.join(root, 'var/lib/agentbox/secrets/event-log.key'), checkpointIntervalMs: 3_600_000 },
  });
  await log.connect(AbortSignal.timeout(10_000));
  for (let i = 0; i < 30; i++) await log.append([{ kind: 'test.audit', source: 'cli-test', data: { i } }]);
  await log.close();
  // The operator's copy, taken off the machine.
  copyFileSync(path.join(dir, 'tlog/checkpoint'), checkpoint);
});

t.test('an intact log against its checkpoint: exit 0, --json says so', async (t) => {
  const r = runAgentbox(['events', 'verify', '--root', root, '--against', checkpoint]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /against the checkpoint of agentbox\/log\/[0-9a-f]{16} at size 30 \(signature verified\): the first 30 of the log's 30 entries hash/);
  const key = readFileSync(path.join(dir, 'tlog/verifier-key'), 'utf8').trim();
  const json = runAgentbox(['events', 'verify', '--json', dir, '--against', checkpoint, '--key', key]);
  t.equal(json.code, 0, json.stderr);
  t.match(JSON.parse(json.stdout), { ok: true, chainOk: true, events: 30, against: { ok: true, entries: 30, checkpoint: { size: 30 } } });
});

t.test('a truncated log: the chain alone passes, the checkpoint catches it with the counts', async (t) => {
  const saved = snapshot();
  t.teardown(() => restore(saved));
  const files = segments();
  rmSync(files[files.length - 1]!);
  const chainOnly = runAgentbox(['events', 'verify', dir]);
  t.equal(chainOnly.code, 0, 'cutting the end leaves a chain that verifies on its own');
  const r = runAgentbox(['events', 'verify', dir, '--against', checkpoint]);
  t.equal(r.code, 1, r.stdout);
  t.match(r.stderr, /the log holds (\d+) entries but the checkpoint covers 30: \d+ entries \(seq \d+ to 30\) were removed/);
  const json = JSON.parse(runAgentbox(['events', 'verify', '--json', dir, '--against', checkpoint]).stdout);
  t.match(json, { ok: false, chainOk: true, against: { ok: false, problem: 'truncated', checkpoint: { size: 30 } } });
});

t.test('a rewritten log with its chain rebuilt: caught, the first changed entry named', async (t) => {
  const saved = snapshot();
  t.teardown(() => restore(saved));
  // Rewrite seq 12 and re-chain everything after it, as someone hiding an edit would.
  let prev = GENESIS_HASH;
  for (const file of segments()) {
    const out = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((text) => {
        const e = toStored(decodeLine(text));
        if (e.seq === 12) e.data = { i: 'rewritten' };
        const { line, hash } = encodeLine(prev, e);
        prev = hash;
        return line;
      });
    writeFileSync(file, out.join(''));
  }
  t.equal(runAgentbox(['events', 'verify', dir]).code, 0, 'the rebuilt chain verifies on its own');
  const r = runAgentbox(['events', 'verify', dir, '--against', checkpoint]);
  t.equal(r.code, 1);
  t.match(
    r.stderr,
    /do not hash to the checkpoint's root: the log was rewritten; the first entry that differs from the one signed is seq 12 \(events-\d+\.jsonl:\d+\)/,
  );
  const json = JSON.parse(runAgentbox(['events', 'verify', '--json', dir, '--against', checkpoint]).stdout);
  t.match(json, { ok: false, against: { problem: 'rewritten', firstDiffering: { index: 11 } } });
  // Without the stored tree the entry cannot be named, but the rewrite is still caught.
  const tree = path.join(dir, 'tlog/tree.hashes');
  const treeBytes = readFileSync(tree);
  t.teardown(() => writeFileSync(tree, treeBytes));
  rmSync(tree);
  const bare = runAgentbox(['events', 'verify', dir, '--against', checkpoint]);
  t.equal(bare.code, 1);
  t.match(bare.stderr, /the log was rewritten; the log's stored tree no longer gives the signed root either/);
});

t.test('a checkpoint that does not verify, or a wrong key: exit 2 with the reason', async (t) => {
  const altered = path.join(root, 'altered-checkpoint');
  writeFileSync(altered, readFileSync(checkpoint, 'utf8').replace(/\n30\n/, '\n29\n'));
  const r = runAgentbox(['events', 'verify', dir, '--against', altered]);
  t.equal(r.code, 2);
  t.match(r.stderr, /cannot be used: the signature by agentbox\/log\/[0-9a-f]+ does not verify/);
  const stranger = parseSignerKey(generateSignerKey('someone/else')).verifierKey;
  const wrong = runAgentbox(['events', 'verify', dir, '--against', checkpoint, '--key', stranger]);
  t.equal(wrong.code, 2);
  t.match(wrong.stderr, /no signature by someone\/else/);
  t.equal(runAgentbox(['events', 'verify', dir, '--key', stranger]).code, 2, '--key without --against is a usage error');
});
