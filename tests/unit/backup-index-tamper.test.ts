// A backup whose index (backup.json) was edited, through the real CLI: an entry naming a place a backup never
// writes (the secrets directory: a planted api-key would be the restored box's), an entry that is no plain
// relative path, one listed twice, one with no path or no size: verify and restore refuse it naming the entry,
// and the restore writes nothing. Also refused: sealed secrets holding anything but the identity and event-log
// keys (an age file any holder of the public recipient key can make), a file changed or swapped for a link
// after the check, and an index that is a FIFO (verify hung on it), a link or no JSON object.
import t, { type Test } from 'tap';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupBoxRoot } from '../helpers/backup-box-root.js';
import { runAgentbox } from '../helpers/cli.js';
import { sealSecretsTo } from '../../management-api/src/backup/secrets-age.js';
import { restoreBackup } from '../../management-api/src/backup/restore-backup.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-tamper-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const agentbox = (...args: string[]) => runAgentbox(args, { cwd: work });

const root = backupBoxRoot(path.join(work, 'box'));
const backup = path.join(work, 'backup');
t.equal(agentbox('backup', '--root', root, '--to', backup).code, 0, 'the backup to edit');

type Entry = { path: string; bytes: number; sha256: string; mode: number };
let copies = 0;
/** A copy of the backup with its index's files edited by `edit` (which may plant files in the copy). */
function tampered(edit: (files: Entry[], dir: string) => unknown[], from = backup): string {
  const dir = path.join(work, `tampered-${++copies}`);
  cpSync(from, dir, { recursive: true });
  const indexFile = path.join(dir, 'backup.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { files: unknown[] };
  index.files = edit(index.files as Entry[], dir);
  writeFileSync(indexFile, JSON.stringify(index));
  return dir;
}
/** Plant `content` at `rel` in the backup `dir`; its index entry, as a backup would write it. */
function plant(dir: string, rel: string, content: string): Entry {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), content);
  return { path: rel, bytes: Buffer.byteLength(content), sha256: createHash('sha256').update(content).digest('hex'), mode: 0o600 };
}

/** verify and restore both refuse `dir`, saying `said`; the restore makes no root. */
function refused(t: Test, dir: string, said: string | RegExp): void {
  t.match(agentbox('backup', 'verify', dir), { code: 1, stdout: said }, 'verify refuses it');
  const into = path.join(work, `restored-${path.basename(dir)}`);
  const restore = agentbox('restore', dir, '--root', into);
  t.match(restore, { code: 1, stderr: said }, 'restore refuses it');
  t.notOk(existsSync(into), 'nothing restored');
}

t.test('a file planted in the secrets directory (or anywhere a backup never writes) is refused', async (t) => {
  for (const rel of ['state/secrets/api-key', 'state/secrets/identity.key', 'state/code-server/settings.json', 'manifest/other.toml']) {
    const dir = tampered((files, d) => [...files, plant(d, rel, 'chosen by whoever edited the backup\n')]);
    refused(t, dir, `${path.join(dir, 'backup.json')} names "${rel}", which a backup never holds`);
  }
});

t.test('an entry that is no plain relative path, one listed twice, one with no path or size is named', async (t) => {
  const backupJson = (dir: string) => path.join(dir, 'backup.json');
  let dir = tampered((files) => [...files, { ...files[0]!, path: `state//${files[0]!.path.slice('state/'.length)}` }]);
  refused(t, dir, `${backupJson(dir)} names "state//pods/docs/page.txt", not a plain relative path`);
  dir = tampered((files) => [...files, files[0]]);
  refused(t, dir, `${backupJson(dir)} names "state/pods/docs/page.txt" twice`);
  dir = tampered((files) => [null, ...files]);
  refused(t, dir, `${backupJson(dir)}: files[0] has no path`);
  dir = tampered((files) => [{ ...files[0]!, bytes: 'all of them' }]);
  refused(t, dir, `${backupJson(dir)} names "state/pods/docs/page.txt" with a size that is no number of bytes`);
});

t.test('sealed secrets that name anything but the identity and event-log keys are refused, naming it', async (t) => {
  // Sealing to a recipient key takes only the public key, which the index names: anyone can make such a file.
  const identityFile = path.join(work, 'identity.key');
  const { recipient } = JSON.parse(agentbox('backup', 'keygen', '--out', identityFile, '--json').stdout) as { recipient: string };
  const sealed = path.join(work, 'sealed');
  t.equal(agentbox('backup', '--root', root, '--to', sealed, '--with-secrets', '--recipient', recipient).code, 0);
  const forged = Buffer.from(await sealSecretsTo({ 'api-key': Buffer.from('a key its sender knows\n') }, [recipient]));
  const dir = tampered((files, d) => {
    writeFileSync(path.join(d, 'secrets.enc'), forged);
    return files.map((f) => (f.path === 'secrets.enc' ? { ...f, bytes: forged.length, sha256: createHash('sha256').update(forged).digest('hex') } : f));
  }, sealed);
  t.equal(agentbox('backup', 'verify', dir).code, 0, 'its files match its index');
  const into = path.join(work, 'restored-forged');
  t.match(agentbox('restore', dir, '--root', into, '--identity-file', identityFile), {
    code: 1,
    stderr: `${path.join(dir, 'secrets.enc')} holds "api-key", which a backup never seals (only identity.key and event-log.key)`,
  });
  t.notOk(existsSync(into), 'nothing restored');
});

t.test('a file changed or swapped for a link after the check is refused, not restored', async (t) => {
  const page = 'state/pods/docs/page.txt';
  const host = path.join(work, 'host-secret');
  writeFileSync(host, 'a file of the host\n');
  for (const [what, swap] of [
    ['changed', (file: string) => writeFileSync(file, 'A PAGE\n')],
    [
      'became a symbolic link',
      (file: string) => {
        rmSync(file);
        symlinkSync(host, file);
      },
    ],
  ] as const) {
    const dir = tampered((files) => files);
    const into = path.join(work, `restored-swapped-${copies}`);
    // The swap is made as the copying starts: after the whole backup was checked.
    const swapAt = (step: string) => /^restoring/.test(step) && swap(path.join(dir, page));
    await t.rejects(restoreBackup({ from: dir, root: into, progress: swapAt }), {
      message: `${path.join(dir, page)} ${what} since the backup was checked: it was written to during the restore`,
    });
    t.notOk(existsSync(into), `${what}: nothing restored`);
  }
});

t.test('an index that is a FIFO, a link or no JSON object is refused at once, naming it', async (t) => {
  for (const [what, make, said] of [
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file]), 'is not a regular file'],
    ['a link to /dev/zero', (file: string) => symlinkSync('/dev/zero', file), 'is a symbolic link, not a file'],
    ['JSON null', (file: string) => writeFileSync(file, 'null\n'), "is not a backup's index (no JSON object)"],
  ] as const) {
    const dir = tampered((files) => files);
    const index = path.join(dir, 'backup.json');
    rmSync(index);
    make(index);
    const run = agentbox('backup', 'verify', dir);
    t.same([run.code, run.signal], [1, null], `${what}: refused, not ended by the helper's timeout`);
    t.match(run.stdout, `${index} ${said}`, what);
  }
});

// The sealed backup and its identity file are the test's before.
t.test('an index naming secrets the sealed file does not hold is refused (what a restore reports is what it wrote)', async (t) => {
  const identityFile = path.join(work, 'identity.key');
  const sealed = path.join(work, 'sealed');
  const dir = tampered((files) => files, sealed);
  const indexFile = path.join(dir, 'backup.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { secrets: { names: string[] } };
  t.same(index.secrets.names, [], 'a box with no keys yet seals none');
  index.secrets.names = ['identity.key'];
  writeFileSync(indexFile, JSON.stringify(index));
  const into = path.join(work, 'restored-names');
  t.match(agentbox('restore', dir, '--root', into, '--identity-file', identityFile, '--json'), {
    code: 1,
    stdout: '',
    stderr: `${path.join(dir, 'secrets.enc')} holds no secret, ${indexFile} says identity.key: the backup was changed`,
  });
  t.notOk(existsSync(into), 'nothing restored');
});
