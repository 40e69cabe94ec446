// `agentbox events verify --remote URL --against OLD` against a real running box: a log that grew since the old checkpoint is
// consistent (exit 0); an old checkpoint of another root, signed with the box's own key, is a fork (exit 1); one signed by
// another key, a box that cannot be reached and bad usage are exit 2.
import t from 'tap';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LOG_KEY_FILE } from '../../management-api/src/adapters/events/local-jsonl.js';
import { formatCheckpoint, parseCheckpoint } from '../../management-api/src/tlog/checkpoint.js';
import { generateSignerKey, openNote, parseSignerKey, parseVerifierKey, signNote } from '../../management-api/src/tlog/signed-note.js';
import { runAgentboxAsync } from '../helpers/cli.js';
import { startTestServer, waitFor } from './support/harness.js';

const toml = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n\n[audit]\ncheckpoint_interval_sec = 1\n';
const box = await startTestServer({ toml });
t.teardown(() => box.close());
const work = await mkdtemp(path.join(os.tmpdir(), 'agentbox-remote-verify-'));
t.teardown(() => rm(work, { recursive: true, force: true }));

const meta = (await box.api('/v1/meta')).json as { eventLog: { origin: string; verifierKey: string } };
const verifier = parseVerifierKey(meta.eventLog.verifierKey);
const note = async (): Promise<string> =>
  (await fetch(`${box.server.apiUrl}/v1/events/checkpoint`, { headers: { authorization: `Bearer ${box.key}` } })).text();
const append = async (n: number) => {
  for (let i = 0; i < n; i++) {
    const status = (await box.api('/v1/events', { body: { kind: 'test.audit', data: { i } } })).status;
    if (status !== 201) throw new Error(`appending an event answered ${status}`);
  }
};
/** The first checkpoint that covers at least `size` entries (one is signed each second while the log grows). */
const checkpointCovering = (size: number) =>
  waitFor(`a checkpoint of ${size} entries`, async () => {
    const text = await note();
    return parseCheckpoint(openNote(text, verifier)).size >= size ? text : undefined;
  });
const verify = (...args: string[]) => runAgentboxAsync(['events', 'verify', '--remote', box.server.apiUrl, '--key-file', box.paths.apiKeyFile, ...args]);

await append(5);
const oldNote = await checkpointCovering(5);
const old = parseCheckpoint(openNote(oldNote, verifier));
const oldFile = path.join(work, 'old-checkpoint');
await writeFile(oldFile, oldNote);

t.test('a log that grew since the old checkpoint: grown, with the key the box offers or with --key', async (t) => {
  await append(7);
  await checkpointCovering(old.size + 7);
  const r = await verify('--against', oldFile);
  t.equal(r.code, 0, r.stderr);
  t.match(
    r.stdout,
    new RegExp(
      `: grown: grown from ${old.size} to \\d+ entries; the consistency proof holds \\(log ${meta.eventLog.origin}; both checkpoints verified with the box's key, which the old checkpoint verifies with\\)`,
    ),
  );
  const json = await verify('--against', oldFile, '--key', meta.eventLog.verifierKey, '--json');
  t.equal(json.code, 0, json.stderr);
  t.match(JSON.parse(json.stdout), {
    ok: true,
    outcome: 'grown',
    origin: meta.eventLog.origin,
    old: { size: old.size, root: old.root.toString('base64') },
    keySource: 'key',
  });
  t.ok((JSON.parse(json.stdout) as { current: { size: number } }).current.size >= old.size + 7);
});

t.test('the current checkpoint held against itself: same', async (t) => {
  // The log keeps still only while nothing is appended: a request of this test appends nothing (orchestrator off, no agents).
  const now = path.join(work, 'now');
  await writeFile(now, await note());
  const r = await verify('--against', now, '--json');
  t.equal(r.code, 0, r.stderr);
  t.match(JSON.parse(r.stdout), { ok: true, outcome: /^(same|grown)$/ });
});

t.test("an old checkpoint of another root, signed with the box's own key: forked, exit 1", async (t) => {
  const signer = parseSignerKey((await readFile(path.join(box.paths.secretsDir, LOG_KEY_FILE), 'utf8')).trim());
  const forged = path.join(work, 'forged');
  await writeFile(forged, signNote(formatCheckpoint({ origin: old.origin, size: old.size, root: Buffer.alloc(32, 7) }), signer));
  const r = await verify('--against', forged);
  t.equal(r.code, 1, r.stdout);
  t.match(
    r.stderr,
    new RegExp(`: forked: the consistency proof from ${old.size} to \\d+ entries does not hold .*: the first ${old.size} entries were rewritten`),
  );
  const json = await verify('--against', forged, '--json');
  t.equal(json.code, 1);
  t.match(JSON.parse(json.stdout), { ok: false, outcome: 'forked' });
  // Larger than the log: the box would have had to truncate it.
  const ahead = path.join(work, 'ahead');
  await writeFile(ahead, signNote(formatCheckpoint({ origin: old.origin, size: 1_000_000, root: Buffer.alloc(32, 9) }), signer));
  const cut = await verify('--against', ahead);
  t.equal(cut.code, 1);
  t.match(cut.stderr, /the old checkpoint covers 1000000: it was truncated or rewritten/);
});

t.test('an old checkpoint signed by another key, an unreachable box, bad usage: exit 2 with the reason', async (t) => {
  const other = path.join(work, 'other-key');
  await writeFile(other, signNote(formatCheckpoint({ origin: old.origin, size: old.size, root: old.root }), parseSignerKey(generateSignerKey(old.origin))));
  const r = await verify('--against', other);
  t.equal(r.code, 2);
  t.match(r.stderr, /does not verify with the key the box offers now .*: pass --key with the verifier key you trust/);
  const withKey = await verify('--against', other, '--key', meta.eventLog.verifierKey);
  t.equal(withKey.code, 2);
  t.match(withKey.stderr, /the checkpoint .*other-key does not verify: the note is signed by .* with key ID/);

  const unreachable = await runAgentboxAsync(['events', 'verify', '--remote', 'http://127.0.0.1:1', '--against', oldFile, '--key', meta.eventLog.verifierKey]);
  t.equal(unreachable.code, 2);
  t.match(unreachable.stderr, /cannot reach http:\/\/127\.0\.0\.1:1\/v1\/events\/checkpoint/);
  const noKey = await runAgentboxAsync(['events', 'verify', '--remote', box.server.apiUrl, '--against', oldFile, '--root', work]);
  t.equal(noKey.code, 2);
  t.match(noKey.stderr, /answered 401: .*pass --key-file with the box API key/);
  t.match(await runAgentboxAsync(['events', 'verify', '--remote', box.server.apiUrl]), { code: 2, stderr: /--remote URL needs --against OLD_CHECKPOINT/ });
  t.match(await runAgentboxAsync(['events', 'verify', '--remote', 'ftp://x', '--against', oldFile]), { code: 2, stderr: /is not an http\(s\) URL/ });
  t.match(await runAgentboxAsync(['events', 'verify', '--key-file', oldFile]), { code: 2, stderr: /--key-file \(the box API key\) is used with --remote URL/ });
});
