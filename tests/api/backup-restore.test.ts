// Box backup and restore on real boxes: a backup taken by the CLI while the box serves and writes,
// verified, restored into a new root, and the restored box answers with the same beads, events
// (chain and checkpoint verify), memories, pods, snapshots and identity. And the faults: a damaged
// backup is refused naming the file, a non-empty root and a wrong passphrase are refused, kill -9
// mid-backup leaves nothing that looks whole, a full disk fails cleanly.
import t from 'tap';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { appendFile, cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { verifyEventLog } from '../../management-api/src/adapters/events/log-verify.js';
import { repoRoot } from '../helpers/cli.js';
import { makeRoot, startTestServer, waitFor, type TestServer } from './support/harness.js';

const cli = path.join(repoRoot, 'dist/scripts/cli/agentbox.js');
const toml =
  '[adapters]\nbeads = "local-sqlite"\npods = "local-fs"\nmemory = "local-ruvector"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\ncritical = []\n[audit]\ncheckpoint_interval_sec = 1\n';
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-'));
// Agents run as another uid when the box runs as root: the restored root under it must be searchable.
chmodSync(work, 0o755);
const passphraseFile = path.join(work, 'passphrase');
writeFileSync(passphraseFile, 'correct horse battery staple\n', { mode: 0o600 });

/** The CLI, with a plain environment. */
function agentbox(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work },
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The CLI without blocking this process: for a run that calls back into a box this test process serves. */
function agentboxAsync(...args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cli, ...args], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work } });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.stdout.resume();
    p.on('exit', (code) => resolve({ code, stderr }));
  });
}

type Bead = { id: string; title: string; status: string };
type StoredEvent = { seq: number; hash: string; kind: string };
const json = async (box: TestServer, url: string) => (await box.api(url)).json;
/** Every item of a paged listing, following nextCursor. */
async function allPages<T>(box: TestServer, url: string): Promise<T[]> {
  const items: T[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await json(box, cursor ? `${url}${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : url);
    if (!Array.isArray(page['items'])) throw new Error(`${url}: ${JSON.stringify(page)}`);
    items.push(...(page['items'] as T[]));
    cursor = page['nextCursor'] as string | undefined;
    if (!cursor) return items;
  }
}
/** A file's text, or undefined once it is gone. */
function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

const beadsOf = async (box: TestServer) => (await allPages<Bead>(box, '/v1/beads')).map((b) => ({ id: b.id, title: b.title, status: b.status }));
const memoriesOf = async (box: TestServer) => (await allPages<{ id: string; text: string }>(box, '/v1/memory/notes')).map((m) => [m.id, m.text]);
const eventsOf = async (box: TestServer, size: number) =>
  (await allPages<StoredEvent>(box, '/v1/events')).slice(0, size).map((e) => ({ seq: e.seq, hash: e.hash, kind: e.kind }));

let original: TestServer;
let originalRoot: Awaited<ReturnType<typeof makeRoot>>;
let snapshotId: string;
const backupDir = path.join(work, 'backup');

t.before(async () => {
  originalRoot = await makeRoot();
  // The manifest the box runs, where `agentbox up` keeps its copy.
  await mkdir(path.dirname(originalRoot.paths.manifestFile), { recursive: true });
  await writeFile(originalRoot.paths.manifestFile, toml);
  original = await startTestServer({ toml, root: originalRoot });
  for (let i = 0; i < 40; i++) await original.api('/v1/beads', { body: { title: `bead ${i}` } });
  for (let i = 0; i < 30; i++) await original.api('/v1/memory/notes', { body: { id: `m${i}`, text: `note number ${i} about ${i % 3 ? 'tests' : 'backups'}` } });
  for (let i = 0; i < 5; i++)
    await original.api(`/v1/pods/docs/page-${i}.txt`, { method: 'PUT', rawBody: `page ${i}\n`, headers: { 'content-type': 'text/plain' } });
  const agent = (
    await original.api('/v1/agents', { body: { name: 'writer', command: '/bin/sh', args: ['-c', 'echo "kept in a snapshot" > result.txt; exec sleep 600'] } })
  ).json['agent'] as { id: string; cwd: string };
  await waitFor('the agent to write', () => existsSync(path.join(original.paths.workspaceDir, agent.cwd, 'result.txt')));
  snapshotId = ((await original.api(`/v1/agents/${agent.id}/snapshots`, { body: { label: 'good state' } })).json['snapshot'] as { id: string }).id;
  await original.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' });
});
t.teardown(async () => {
  await original?.close();
  await originalRoot?.cleanup();
  await rm(work, { recursive: true, force: true });
});

t.test('a backup taken while the box writes, verified, restored: the new box answers the same', async (t) => {
  // The box keeps writing beads during the backup: the SQLite copy is one snapshot of the store, the event log ends at a checkpoint.
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) await original.api('/v1/beads', { body: { title: `during ${i}` } });
  })();
  const backup = await agentboxAsync('backup', '--root', originalRoot.dir, '--to', backupDir, '--with-secrets', '--passphrase-file', passphraseFile, '--json');
  writing = false;
  await writer;
  t.equal(backup.code, 0, backup.stderr);
  t.match(backup.stderr, /agentbox backup: wrote .*backup: \d+ files, .* events \(to the signed checkpoint\), secrets sealed/);
  const index = JSON.parse(readFileSync(path.join(backupDir, 'backup.json'), 'utf8')) as {
    eventLog: { events: number; checkpoint: { size: number } };
    secrets: { names: string[] };
    files: Array<{ path: string }>;
  };
  t.same(index.secrets.names.sort(), ['event-log.key', 'identity.key'], 'the identity and log keys, sealed');
  t.notOk(
    index.files.some((f) => f.path.includes('api-key')),
    'never the API key',
  );
  t.notMatch(
    readFileSync(path.join(backupDir, 'secrets.enc'), 'utf8'),
    readFileSync(original.paths.identityKeyFile, 'utf8').trim(),
    'the identity key is not in the clear',
  );
  t.equal(statSync(path.join(backupDir, 'secrets.enc')).mode & 0o777, 0o600);

  const verify = agentbox('backup', 'verify', backupDir, '--json');
  t.equal(verify.code, 0, verify.stdout + verify.stderr);
  t.match(JSON.parse(verify.stdout), { ok: true, problems: [] });

  const newRoot = path.join(work, 'restored');
  const restore = agentbox('restore', backupDir, '--root', newRoot, '--passphrase-file', passphraseFile);
  t.equal(restore.code, 0, restore.stderr);
  t.match(restore.stderr, new RegExp(`start it: agentbox up --local --manifest ${newRoot}/etc/agentbox/agentbox.toml --root ${newRoot}`));
  t.equal(statSync(path.join(newRoot, 'var/lib/agentbox/secrets/identity.key')).mode & 0o777, 0o600, 'secrets restored 0600');
  t.equal(readFileSync(path.join(newRoot, 'etc/agentbox/agentbox.toml'), 'utf8'), toml, 'the manifest');

  const restored = await startTestServer({
    toml,
    root: {
      dir: newRoot,
      paths: (await import('../../management-api/src/runtime-paths.js')).runtimePaths({ AGENTBOX_ROOT: newRoot }),
      cleanup: async () => undefined,
    },
  });
  t.teardown(() => restored.close());
  t.same(
    ((await json(restored, '/v1/meta'))['identity'] as Record<string, string>)['npub'],
    ((await json(original, '/v1/meta'))['identity'] as Record<string, string>)['npub'],
    'the same identity',
  );
  const before = (await beadsOf(original)).filter((b) => !b.title.startsWith('during '));
  const after = await beadsOf(restored);
  t.same(
    after.filter((b) => !b.title.startsWith('during ')),
    before,
    'the same beads',
  );
  const during = after.filter((b) => b.title.startsWith('during ')).map((b) => Number(b.title.slice(7)));
  t.same(
    during,
    during.map((_, i) => i),
    `the beads written during the backup: a prefix (${during.length} of them), never a hole`,
  );
  t.same(await memoriesOf(restored), await memoriesOf(original), 'the same memories');
  const search = async (box: TestServer) =>
    ((await box.api('/v1/memory/notes/search', { body: { text: 'backups', k: 5 } })).json['hits'] as Array<{ id: string }>).map((h) => h.id);
  t.same(await search(restored), await search(original), 'the same search results');
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${restored.server.apiUrl}/v1/pods/docs/page-${i}.txt`, { headers: { authorization: `Bearer ${restored.key}` } });
    t.equal(await res.text(), `page ${i}\n`, `pod resource ${i}`);
  }
  const size = index.eventLog.checkpoint.size;
  t.equal(index.eventLog.events, size, 'the log up to its checkpoint');
  t.same(await eventsOf(restored, size), await eventsOf(original, size), `the same ${size} events`);
  t.match(await verifyEventLog(path.join(newRoot, 'var/lib/agentbox/events')), { ok: true }, 'the chain verifies');
  const checkpoint = await fetch(`${restored.server.apiUrl}/v1/events/checkpoint`, { headers: { authorization: `Bearer ${restored.key}` } });
  const audit = agentbox('events', 'verify', '--root', newRoot, '--against', path.join(backupDir, 'state/events/tlog/checkpoint'), '--json');
  t.equal(audit.code, 0, `the restored log matches the backed-up checkpoint: ${audit.stdout}${audit.stderr}`);
  t.equal(checkpoint.status, 200, 'the restored box signs checkpoints with the same key');
  t.match((await json(restored, '/v1/meta'))['eventLog'], (await json(original, '/v1/meta'))['eventLog'] as Record<string, unknown>, 'the same event log key');
  const snapshots = (await json(restored, '/v1/snapshots'))['snapshots'] as Array<{ id: string; label?: string }>;
  t.same(
    snapshots.map((s) => [s.id, s.label]),
    [[snapshotId, 'good state']],
    'the same snapshot',
  );
  const forked = await restored.api('/v1/agents', { body: { name: 'fork', fromSnapshot: snapshotId, command: '/bin/cat', args: ['result.txt'] } });
  t.equal(forked.status, 201, JSON.stringify(forked.json));
  const fork = forked.json['agent'] as { id: string };
  await waitFor(
    'the fork to print',
    async () => ((await json(restored, `/v1/agents/${fork.id}/output`))['chunks'] as Array<{ text: string }>).length > 0 || undefined,
  );
  t.match(
    ((await json(restored, `/v1/agents/${fork.id}/output`))['chunks'] as Array<{ text: string }>).map((c) => c.text).join(''),
    /kept in a snapshot/,
    'a fork of the restored snapshot',
  );
});

t.test('faults: damage named, non-empty root and wrong passphrase refused, kill -9 leaves nothing whole, a full disk fails cleanly', async (t) => {
  t.ok(existsSync(path.join(backupDir, 'backup.json')), 'the backup of the test before');
  // A corrupted copy: one byte of the beads store changed.
  const damaged = path.join(work, 'damaged');
  await cp(backupDir, damaged, { recursive: true });
  const store = path.join(damaged, 'state/beads/beads.sqlite');
  const bytes = readFileSync(store);
  bytes.writeUInt8(bytes.readUInt8(bytes.length - 100) ^ 0xff, bytes.length - 100);
  writeFileSync(store, bytes);
  const verify = agentbox('backup', 'verify', damaged);
  t.equal(verify.code, 1);
  t.match(verify.stdout, `${store} does not match its SHA-256 in the index: it is corrupted`);
  const restore = agentbox('restore', damaged, '--root', path.join(work, 'never'), '--passphrase-file', passphraseFile);
  t.equal(restore.code, 1);
  t.match(restore.stderr, `the backup is not whole: ${store} does not match its SHA-256`);
  t.notOk(existsSync(path.join(work, 'never')), 'nothing restored');
  // A cut event log: its checkpoint no longer holds.
  const cut = path.join(work, 'cut');
  await cp(backupDir, cut, { recursive: true });
  await appendFile(path.join(cut, 'state/pods/extra'), 'planted');
  t.match(agentbox('backup', 'verify', cut).stdout, `${path.join(cut, 'state/pods/extra')} is not in the index`);

  // A hostile copy: an index edited to restore a setuid, world-writable store; a link and a FIFO that no index names; a link the index names.
  const hostile = path.join(work, 'hostile');
  await cp(backupDir, hostile, { recursive: true });
  // Its signature dropped, as a rewriter must (one kept is refused first: backup-signature.test.ts): the index's own checks are what is tested here.
  await rm(path.join(hostile, 'backup.sig'));
  const indexFile = path.join(hostile, 'backup.json');
  const original = readFileSync(indexFile, 'utf8');
  const index = JSON.parse(original) as { files: Array<{ path: string; mode: number }> };
  index.files.find((f) => f.path === 'state/beads/beads.sqlite')!.mode = 0o4777;
  writeFileSync(indexFile, JSON.stringify(index));
  t.match(agentbox('backup', 'verify', hostile), {
    code: 1,
    stdout: /gives state\/beads\/beads\.sqlite mode 04777: a backup keeps permission bits \(0777\) only/,
  });
  t.match(agentbox('restore', hostile, '--root', path.join(work, 'never-setuid'), '--passphrase-file', passphraseFile), { code: 1, stderr: /mode 04777/ });
  t.notOk(existsSync(path.join(work, 'never-setuid')), 'nothing restored');
  writeFileSync(indexFile, original);
  await symlink('/etc/passwd', path.join(hostile, 'state/pods/shadow'));
  execFileSync('mkfifo', [path.join(hostile, 'state/pods/pipe')]);
  const strays = agentbox('backup', 'verify', hostile);
  t.equal(strays.code, 1);
  t.match(strays.stdout, `${path.join(hostile, 'state/pods/shadow')} is not in the index`, 'a link no index names');
  t.match(strays.stdout, `${path.join(hostile, 'state/pods/pipe')} is not in the index`, 'a FIFO no index names');
  await rm(path.join(hostile, 'state/pods/shadow'));
  await rm(path.join(hostile, 'state/pods/pipe'));
  const named = index.files.find((f) => f.path.startsWith('state/pods/'))!;
  const namedFile = path.join(hostile, ...named.path.split('/'));
  await rm(namedFile);
  await symlink(path.join(backupDir, ...named.path.split('/')), namedFile);
  t.match(
    agentbox('backup', 'verify', hostile),
    { code: 1, stdout: `${namedFile} is a symbolic link, not a file: a backup holds files only` },
    'a named file replaced by a link to the same bytes is not followed',
  );

  const taken = path.join(work, 'taken');
  await mkdir(taken);
  await writeFile(path.join(taken, 'something'), 'x');
  t.match(agentbox('restore', backupDir, '--root', taken, '--passphrase-file', passphraseFile), { code: 1, stderr: /is not empty: restore into a new root/ });
  const wrong = path.join(work, 'wrong-passphrase');
  writeFileSync(wrong, 'not the passphrase\n');
  t.match(agentbox('restore', backupDir, '--root', path.join(work, 'wrong'), '--passphrase-file', wrong), { code: 1, stderr: /the passphrase is wrong/ });
  t.notOk(existsSync(path.join(work, 'wrong')));
  t.match(agentbox('restore', backupDir, '--root', path.join(work, 'nopass')), { code: 1, stderr: /holds sealed secrets/ });
  t.match(agentbox('restore', backupDir, '--root', path.join(work, 'fresh-identity'), '--without-secrets'), { code: 0 });
  t.notOk(existsSync(path.join(work, 'fresh-identity/var/lib/agentbox/secrets/identity.key')), 'without secrets: a new identity at the first start');

  // kill -9 while it writes: only DIR.partial-PID is left, which never verifies.
  const killed = path.join(work, 'killed');
  const p = spawn(process.execPath, [cli, 'backup', '--root', originalRoot.dir, '--to', killed], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve) => p.stderr.on('data', (d: Buffer) => /SQLite store|event log|pods/.test(d.toString()) && resolve()));
  // Background work, every thread of it (the copies and fsyncs run on libuv's pool, not the first
  // thread): nice 10 (the 17th field after the command's closing parenthesis) and the idle I/O class.
  // Held still while it is looked at, so it cannot finish before the kill below.
  p.kill('SIGSTOP');
  // A thread may end between the listing and its reads (Node starts and ends a few of its own): those are passed over.
  let checked = 0;
  for (const tid of readdirSync(`/proc/${p.pid}/task`)) {
    const stat = readIfThere(`/proc/${p.pid}/task/${tid}/stat`);
    const ioClass = spawnSync('ionice', ['-p', tid], { encoding: 'utf8' });
    if (stat === undefined || ioClass.status !== 0) continue;
    checked++;
    t.equal(Number(stat.split(') ')[1]!.split(' ')[16]), Math.max(10, os.getPriority()), `thread ${tid} runs at nice 10 (or lower, as started)`);
    t.equal(ioClass.stdout.trim(), 'idle', `thread ${tid} is in the idle I/O class`);
  }
  t.ok(checked > 1, `the backup's threads were checked (${checked})`);
  p.kill('SIGKILL');
  await new Promise((resolve) => p.once('exit', resolve));
  t.notOk(existsSync(killed), 'no backup under its name');
  const partial = readdirSync(work).find((n) => n.startsWith('killed.partial-'));
  if (partial) t.match(agentbox('backup', 'verify', path.join(work, partial)), { code: 1, stdout: /backup\.json is missing: .* is not a complete backup/ });

  // A full disk: a small tmpfs in a user and mount namespace of its own. At 16 KiB it fills in the
  // first SQLite store's copy (SQLite says SQLITE_FULL), at 256 KiB later in the copy, where a plain
  // write says ENOSPC, or in a store's copy, by how much the box has written, or when a copy is
  // opened to check it and its -shm file cannot grow (SQLITE_IOERR_SHMSIZE): one message for all.
  for (const size of ['16k', '256k']) {
    const full = spawnSync(
      'unshare',
      [
        '--user',
        '--map-root-user',
        '--mount',
        'sh',
        '-c',
        `mount -t tmpfs -o size=${size} none "$1" && "$2" "$3" backup --root "$4" --to "$1/b"; echo "exit=$?"; ls -A "$1"`,
        'sh',
        work,
        process.execPath,
        cli,
        originalRoot.dir,
      ],
      { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: work } },
    );
    t.match(full.stdout, /exit=1\n$/, `${size}: the backup fails, and nothing is left on the full disk: ${full.stdout}${full.stderr}`);
    t.match(
      full.stderr,
      /no space left on the device while writing the backup .*\/b: free some space or back up elsewhere/,
      `${size}: the message says the disk is full`,
    );
  }
});

t.test('the running box is asked to sign a checkpoint first: the backup holds every event so far', async (t) => {
  // An interval far longer than the test: only the start, the backup's ask (and the stop) sign one.
  const quiet =
    '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n[audit]\ncheckpoint_interval_sec = 3600\n';
  const root = await makeRoot();
  const box = await startTestServer({ toml: quiet, root });
  t.teardown(async () => {
    await box.close();
    await root.cleanup();
  });
  for (let i = 0; i < 9; i++) t.equal((await box.api('/v1/events', { body: { kind: 'test.backup', data: { i } } })).status, 201);
  const appended = (await allPages<StoredEvent>(box, '/v1/events')).length;
  const eventsIn = (dir: string) => (JSON.parse(readFileSync(path.join(dir, 'backup.json'), 'utf8')) as { eventLog: { events: number } }).eventLog.events;

  // This box is not one `agentbox up` registered: without --url the CLI cannot find it, and says so.
  const unasked = agentbox('backup', '--root', root.dir, '--to', path.join(work, 'unasked'));
  t.equal(unasked.code, 0, unasked.stderr);
  t.match(unasked.stderr, /no running box under .* is known to this machine \(agentbox boxes\), so the event log goes up to the box's latest checkpoint/);
  t.ok(eventsIn(path.join(work, 'unasked')) < appended, 'then the appends since the start are not in it');

  // Asynchronously: the box answering the ask is served by this process.
  const asked = await agentboxAsync('backup', '--root', root.dir, '--url', box.server.apiUrl, '--to', path.join(work, 'asked'));
  t.equal(asked.code, 0, asked.stderr);
  t.match(asked.stderr, new RegExp(`the box at ${box.server.apiUrl} signed a checkpoint of ${appended} events`));
  t.equal(eventsIn(path.join(work, 'asked')), appended, 'asked first: every event appended before the backup');
  t.equal(agentbox('backup', 'verify', path.join(work, 'asked')).code, 0);

  const unreachable = agentbox('backup', '--root', root.dir, '--url', 'http://127.0.0.1:1', '--to', path.join(work, 'unreachable'));
  t.equal(unreachable.code, 0, 'a box that cannot be asked does not stop the backup');
  t.match(unreachable.stderr, /cannot reach the box at http:\/\/127\.0\.0\.1:1 .*so the event log goes up to the box's latest checkpoint/);
  t.equal(eventsIn(path.join(work, 'unreachable')), appended, "the box's latest checkpoint: the one the ask signed");
});

t.test('one tar file: backed up, verified, restored; a damaged or hostile archive is refused naming the member', async (t) => {
  const archive = path.join(work, 'box.tar');
  const made = agentbox('backup', '--root', originalRoot.dir, '--to', archive);
  t.equal(made.code, 0, made.stderr);
  t.ok(statSync(archive).isFile(), 'one file');
  t.notOk(
    readdirSync(work).some((n) => n.startsWith('box.tar.partial-')),
    'nothing left beside it',
  );
  t.match(agentbox('backup', 'verify', archive), { code: 0, stdout: /box\.tar: whole: \d+ files/ });
  t.match(agentbox('backup', '--root', originalRoot.dir, '--to', archive), { code: 1, stderr: /exists: back up into a new file/ });
  const root = path.join(work, 'from-tar');
  t.match(agentbox('restore', archive, '--root', root), { code: 0 });
  t.ok(existsSync(path.join(root, 'var/lib/agentbox/beads/beads.sqlite')), 'restored from the tar');

  // One byte of a member changed: named as FILE.tar:member.
  const bytes = readFileSync(archive);
  const at = bytes.indexOf(Buffer.from('page 3'));
  t.ok(at > 0, 'a pod resource in the archive');
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0x20, at);
  const damaged = path.join(work, 'damaged.tar');
  writeFileSync(damaged, bytes);
  t.match(agentbox('backup', 'verify', damaged), { code: 1, stdout: `${damaged}:state/pods/docs/page-3.txt does not match its SHA-256` });
  t.match(agentbox('restore', damaged, '--root', path.join(work, 'never-tar')), { code: 1, stderr: `${damaged}:state/pods/docs/page-3.txt` });

  // A member that climbs out is refused before anything is written outside.
  const tar = await import('tar-stream');
  const pack = tar.pack();
  pack.entry({ name: '../escaped', size: 1 }, 'x');
  pack.finalize();
  const hostile = path.join(work, 'hostile.tar');
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(Buffer.from(c as Uint8Array));
  writeFileSync(hostile, Buffer.concat(chunks));
  t.match(agentbox('restore', hostile, '--root', path.join(work, 'never-hostile')), { code: 1, stderr: /member "\.\.\/escaped" is not a plain relative path/ });
  t.notOk(existsSync(path.join(tmpdir(), 'escaped')), 'nothing escaped');
});

t.test('secrets sealed to a recipient key: keygen, backup, restore with its identity; another identity or none refused', async (t) => {
  const identityFile = path.join(work, 'backup-identity.txt');
  const keygen = agentbox('backup', 'keygen', '--out', identityFile, '--json');
  t.equal(keygen.code, 0, keygen.stderr);
  const { recipient } = JSON.parse(keygen.stdout) as { recipient: string };
  t.match(recipient, /^age1[a-z0-9]{58}$/, 'an age X25519 recipient key');
  t.equal(statSync(identityFile).mode & 0o777, 0o600, 'the identity file is 0600');
  t.match(agentbox('backup', 'keygen', '--out', identityFile), { code: 1, stderr: /exists \(an identity is never overwritten/ }, 'never written over');

  const sealedDir = path.join(work, 'backup-to-recipient');
  const made = agentbox('backup', '--root', originalRoot.dir, '--to', sealedDir, '--with-secrets', '--recipient', recipient, '--json');
  t.equal(made.code, 0, made.stderr);
  const index = JSON.parse(made.stdout.trim().split('\n').at(-1)!) as { secrets: { names: string[]; cipher: string; recipients: string[] } };
  t.same({ ...index.secrets, names: index.secrets.names.sort() }, { names: ['event-log.key', 'identity.key'], cipher: 'age', recipients: [recipient] });
  const originalKey = readFileSync(original.paths.identityKeyFile);
  t.notOk(readFileSync(path.join(sealedDir, 'secrets.enc')).includes(originalKey.toString('utf8').trim()), 'the identity key is not in the clear');
  t.match(readFileSync(path.join(sealedDir, 'secrets.enc'), 'latin1'), /^age-encryption\.org\/v1\n-> X25519 /, 'an age file, to an X25519 recipient');

  const restoredRoot = path.join(work, 'restored-from-recipient');
  const restored = agentbox('restore', sealedDir, '--root', restoredRoot, '--identity-file', identityFile);
  t.equal(restored.code, 0, restored.stderr);
  t.same(readFileSync(path.join(restoredRoot, 'var/lib/agentbox/secrets/identity.key')), originalKey, 'the same identity key, opened with the identity');
  t.equal(statSync(path.join(restoredRoot, 'var/lib/agentbox/secrets/identity.key')).mode & 0o777, 0o600, 'written 0600');

  const otherFile = path.join(work, 'other-identity.txt');
  t.equal(agentbox('backup', 'keygen', '--out', otherFile).code, 0);
  t.match(
    agentbox('restore', sealedDir, '--root', path.join(work, 'restored-other'), '--identity-file', otherFile),
    { code: 1, stderr: /no identity given opens the sealed secrets/ },
    'another identity is refused',
  );
  t.notOk(existsSync(path.join(work, 'restored-other')), 'and nothing restored');
  t.match(
    agentbox('restore', sealedDir, '--root', path.join(work, 'restored-none')),
    { code: 1, stderr: new RegExp(`sealed to recipient keys \\(${recipient}\\): give an identity that opens them \\(--identity-file FILE\\)`) },
    'without an identity: refused, naming the recipient keys and the option',
  );
  t.match(
    agentbox('backup', '--root', originalRoot.dir, '--to', path.join(work, 'never-1'), '--with-secrets', '--recipient', 'age1notakey'),
    { code: 2, stderr: /"age1notakey" is not an age recipient key/ },
    'a malformed recipient key is refused, named',
  );
  t.match(
    agentbox(
      'backup',
      '--root',
      originalRoot.dir,
      '--to',
      path.join(work, 'never-2'),
      '--with-secrets',
      '--recipient',
      recipient,
      '--passphrase-file',
      passphraseFile,
    ),
    { code: 2, stderr: /not both/ },
    'a passphrase and recipient keys at once are refused',
  );
  const badIdentity = path.join(work, 'bad-identity.txt');
  writeFileSync(badIdentity, '# a comment\nAGE-SECRET-KEY-1NOTAKEY\n', { mode: 0o600 });
  t.match(
    agentbox('restore', sealedDir, '--root', path.join(work, 'restored-bad'), '--identity-file', badIdentity),
    { code: 2, stderr: /bad-identity\.txt line 2 is not an age identity/ },
    'a malformed identity file is refused, naming the line',
  );
  t.notOk(existsSync(path.join(work, 'never-1')) || existsSync(path.join(work, 'never-2')), 'no backup made by a refused command');
});
