// A backup's index signed by the box's identity (backup.sig), checked by the real CLI: verify says who signed it, --signed-by
// holds verify and restore to a known key, and a backup rewritten whole (a file and its hash in the index changed
// together) is refused: the signature no longer holds, removed it leaves the backup unsigned, and signed again it is another key's.
// Sealed secrets swapped in after the check (sealing to the recipient key the signed index names takes no secret) are refused too,
// and so is a rewritten index with the box's own put back as soon as it was read (a writer racing verify by inotify).
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';
import { bytesToHex } from 'nostr-tools/utils';
import { signIndex } from '../../management-api/src/backup/index-signature.js';
import { restoreBackup } from '../../management-api/src/backup/restore-backup.js';
import { sealSecretsTo } from '../../management-api/src/backup/secrets-age.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { backupBoxRoot } from '../helpers/backup-box-root.js';
import { runAgentbox, runAgentboxAsync } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-signature-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const agentbox = (...args: string[]) => runAgentbox(args, { cwd: work });

/** A box root with a pod page and, when given, an identity key. */
const boxRoot = (name: string, identity?: Uint8Array): string =>
  backupBoxRoot(path.join(work, name), { page: 'the page\n', ...(identity ? { identity } : {}) });

const secret = generateSecretKey();
const npub = npubEncode(getPublicKey(secret));
const stranger = generateSecretKey();
const strangerNpub = npubEncode(getPublicKey(stranger));
const root = boxRoot('box', secret);

t.test('a backup is signed by the box; verify says so and holds it to the key given', async (t) => {
  const backup = path.join(work, 'signed');
  const made = agentbox('backup', '--root', root, '--to', backup);
  t.equal(made.code, 0, made.stderr);
  t.match(made.stderr, `signed by ${npub}`);
  t.match(agentbox('backup', 'verify', backup), { code: 0, stdout: `signed by ${npub}` });
  t.match(agentbox('backup', 'verify', backup, '--signed-by', npub), { code: 0 });
  t.match(agentbox('backup', 'verify', backup, '--signed-by', getPublicKey(secret)), { code: 0 }, 'the key as hex');
  t.match(agentbox('backup', 'verify', backup, '--signed-by', strangerNpub), { code: 1, stdout: `is signed by ${npub}, not ${strangerNpub}` });
  t.match(agentbox('backup', 'verify', backup, '--signed-by', 'npub1nope'), { code: 2, stderr: /is not a public key/ });
  t.match(JSON.parse(agentbox('backup', 'verify', backup, '--json').stdout), { ok: true, signedBy: npub });

  const tarred = path.join(work, 'signed.tar');
  t.equal(agentbox('backup', '--root', root, '--to', tarred).code, 0);
  t.match(agentbox('backup', 'verify', tarred, '--signed-by', npub), { code: 0, stdout: `signed by ${npub}` }, 'a tar backup carries its signature');
});

t.test('--not-before refuses an older backup the box signed, put in the place of a later one (a rollback)', async (t) => {
  const older = path.join(work, 'older');
  const later = path.join(work, 'later');
  t.equal(agentbox('backup', '--root', root, '--to', older).code, 0);
  t.equal(agentbox('backup', '--root', root, '--to', later).code, 0);
  const laterMade = (JSON.parse(agentbox('backup', 'verify', later, '--json').stdout) as { createdAt: string }).createdAt;
  const olderMade = (JSON.parse(agentbox('backup', 'verify', older, '--json').stdout) as { createdAt: string }).createdAt;
  t.ok(Date.parse(olderMade) < Date.parse(laterMade), `made one after the other (${olderMade}, ${laterMade})`);
  t.match(agentbox('backup', 'verify', later, '--signed-by', npub, '--not-before', laterMade), { code: 0, stdout: `made ${laterMade}` }, 'the latest passes');
  t.match(agentbox('backup', 'verify', older, '--signed-by', npub), { code: 0 }, 'the signature alone cannot tell them apart');
  t.match(
    agentbox('backup', 'verify', older, '--signed-by', npub, '--not-before', laterMade),
    { code: 1, stdout: `was made at ${olderMade}, before ${laterMade}: an older backup than asked for` },
    'the older is refused, with when it was made',
  );
  t.match(agentbox('backup', 'verify', older, '--signed-by', npub, '--not-before', '1d'), { code: 0 }, 'an age counts back from now');
  const target = path.join(work, 'restored-older');
  t.match(agentbox('restore', older, '--root', target, '--signed-by', npub, '--not-before', laterMade), { code: 1, stderr: 'an older backup than asked for' });
  t.notOk(existsSync(target), 'nothing restored');
  const restored = agentbox('restore', later, '--root', path.join(work, 'restored-later'), '--signed-by', npub, '--not-before', laterMade, '--json');
  t.match(JSON.parse(restored.stdout), { signedBy: npub, createdAt: laterMade }, restored.stderr);

  // The time is the signed index's own: changed, the signature no longer holds.
  const indexFile = path.join(older, 'backup.json');
  writeFileSync(indexFile, readFileSync(indexFile, 'utf8').replace(olderMade, new Date(Date.parse(laterMade) + 1000).toISOString()));
  t.match(agentbox('backup', 'verify', older, '--signed-by', npub, '--not-before', laterMade), { code: 1, stdout: /signs another index than/ });
  t.match(
    agentbox('backup', 'verify', older, '--not-before', '1d'),
    { code: 2, stderr: /--not-before needs --signed-by/ },
    'an unsigned time is worth nothing',
  );
  t.match(agentbox('backup', 'verify', later, '--signed-by', npub, '--not-before', 'yesterday'), { code: 2, stderr: /--not-before "yesterday" is neither/ });
});

t.test('a backup rewritten whole is refused: the signature fails, is missing, or is another key', async (t) => {
  const backup = path.join(work, 'rewritten');
  t.equal(agentbox('backup', '--root', root, '--to', backup).code, 0);
  // The attacker changes a file and its size and hash in the index, as a consistent rewrite would.
  const page = 'state/pods/docs/page.txt';
  const forged = Buffer.from('a page of the attacker\n');
  writeFileSync(path.join(backup, page), forged);
  const indexFile = path.join(backup, 'backup.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { files: Array<{ path: string; bytes: number; sha256: string }> };
  const entry = index.files.find((f) => f.path === page)!;
  entry.bytes = forged.length;
  entry.sha256 = createHash('sha256').update(forged).digest('hex');
  writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);

  t.match(agentbox('backup', 'verify', backup), { code: 1, stdout: /signs another index than .*backup\.json: the index was changed after the box signed it/ });

  rmSync(path.join(backup, 'backup.sig'));
  t.match(agentbox('backup', 'verify', backup), { code: 0, stdout: /unsigned/ }, 'whole by its own hashes, and said unsigned');
  t.match(agentbox('backup', 'verify', backup, '--signed-by', npub), { code: 1, stdout: /backup\.sig is missing: the backup is unsigned/ });

  await signIndex(backup, bytesToHex(stranger), new Date());
  t.match(agentbox('backup', 'verify', backup), { code: 0, stdout: `signed by ${strangerNpub}` }, 'signed again, by whoever rewrote it');
  t.match(agentbox('backup', 'verify', backup, '--signed-by', npub), { code: 1, stdout: `is signed by ${strangerNpub}, not ${npub}` });

  const target = path.join(work, 'restored-forged');
  t.match(agentbox('restore', backup, '--root', target, '--signed-by', npub), { code: 1, stderr: `is signed by ${strangerNpub}, not ${npub}` });
  t.notOk(existsSync(target), 'nothing restored');
});

t.test('restore --signed-by restores the box’s own backup; a box without a readable identity makes an unsigned one', async (t) => {
  const backup = path.join(work, 'own');
  t.equal(agentbox('backup', '--root', root, '--to', backup).code, 0);
  const target = path.join(work, 'restored');
  const restored = agentbox('restore', backup, '--root', target, '--signed-by', npub, '--json');
  t.equal(restored.code, 0, restored.stderr);
  t.match(JSON.parse(restored.stdout), { signedBy: npub });
  t.equal(readFileSync(path.join(runtimePaths({ AGENTBOX_ROOT: target }).stateDir, 'pods/docs/page.txt'), 'utf8'), 'the page\n');
  t.notOk(existsSync(path.join(target, 'backup.sig')), 'the signature stays with the backup');

  const anonymous = path.join(work, 'anonymous');
  const made = agentbox('backup', '--root', boxRoot('no-identity'), '--to', anonymous);
  t.equal(made.code, 0, made.stderr);
  t.match(made.stderr, /unsigned \(the identity key is not readable here\)/);
  t.match(agentbox('backup', 'verify', anonymous), { code: 0, stdout: /unsigned/ });
});

t.test('sealed secrets swapped after the check are refused: a restore --signed-by never gives the box a key of the swapper', async (t) => {
  const identityFile = path.join(work, 'age-identity');
  const { recipient } = JSON.parse(agentbox('backup', 'keygen', '--out', identityFile, '--json').stdout) as { recipient: string };
  const backup = path.join(work, 'sealed-signed');
  t.equal(agentbox('backup', '--root', root, '--to', backup, '--with-secrets', '--recipient', recipient).code, 0);
  // Sealing takes only the recipient key, which the signed index names: anyone who may write to the backup can.
  const theirs = Buffer.from(`${bytesToHex(stranger)}\n`);
  const forged = Buffer.from(await sealSecretsTo({ 'identity.key': theirs }, [recipient]));
  const sealed = path.join(backup, 'secrets.enc');
  for (const [what, swap] of [
    ['changed', () => writeFileSync(sealed, forged)],
    [
      'became a symbolic link',
      () => {
        const elsewhere = path.join(work, 'forged-secrets.enc');
        writeFileSync(elsewhere, forged);
        rmSync(sealed);
        symlinkSync(elsewhere, sealed);
      },
    ],
  ] as const) {
    const kept = readFileSync(sealed);
    const into = path.join(work, `restored-swapped-secrets-${what.length}`);
    // Swapped as the secrets are opened: after the whole backup, its signature included, was checked.
    const swapAt = (step: string) => step === 'opening the sealed secrets' && swap();
    await t.rejects(
      restoreBackup({
        from: backup,
        root: into,
        signedBy: npub,
        identities: [
          readFileSync(identityFile, 'utf8')
            .split('\n')
            .find((l) => l.startsWith('AGE-SECRET-KEY-'))!,
        ],
        progress: swapAt,
      }),
      {
        message: `${sealed} ${what} since the backup was checked: it was written to during the restore`,
      },
    );
    t.notOk(existsSync(into), `${what}: nothing restored`);
    rmSync(sealed);
    writeFileSync(sealed, kept);
  }
  const into = path.join(work, 'restored-sealed-signed');
  const restored = agentbox('restore', backup, '--root', into, '--signed-by', npub, '--identity-file', identityFile);
  t.equal(restored.code, 0, restored.stderr);
  t.equal(
    readFileSync(runtimePaths({ AGENTBOX_ROOT: into }).identityKeyFile, 'utf8').trim(),
    bytesToHex(secret),
    "untouched, the box's own identity is restored",
  );
});

/**
 * A writer racing a check: as soon as `name` in `dir` is closed after a read (inotify IN_CLOSE_NOWRITE), `replacement`
 * is renamed over it, once. Resolves when it is watching; `swapped` says whether it did.
 */
async function swapAfterFirstRead(dir: string, name: string, replacement: string): Promise<{ swapped: () => Promise<boolean> }> {
  const script = `
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), 0x10) < 0: sys.exit(3)
print("watching", flush=True)
while True:
    buf = os.read(fd, 65536)
    at = 0
    while at < len(buf):
        _, _, _, size = struct.unpack_from("iIII", buf, at)
        event = buf[at + 16 : at + 16 + size].rstrip(b"\\0").decode()
        at += 16 + size
        if event == sys.argv[2]:
            os.rename(sys.argv[3], os.path.join(sys.argv[1], sys.argv[2]))
            print("swapped", flush=True)
            sys.exit(0)
`;
  const child = spawn('python3', ['-c', script, dir, name, replacement], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const ended = once(child, 'exit');
  while (!out.includes('watching')) {
    if (child.exitCode !== null) throw new Error(`the watcher ended (${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return {
    // The read's close is queued for the watcher whatever its pace: it is waited for, not cut short
    // (a watcher slow to be scheduled swaps late, after the check has ended), killed only if the file
    // was never read at all.
    swapped: async () => {
      const guard = setTimeout(() => child.kill(), 60_000);
      await ended;
      clearTimeout(guard);
      return out.includes('swapped');
    },
  };
}

t.test('an index swapped for the signed one once it was read is refused: the signature is checked over the bytes the check reads', async (t) => {
  // A rewritten index (a page and its hash changed together) is what is read; the box's own index is put back
  // as soon as it was read, so a second read for the signature finds the one the box signed.
  let forgedRuns = 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const backup = path.join(work, `raced-${attempt}`);
    t.equal(agentbox('backup', '--root', root, '--to', backup).code, 0);
    const indexFile = path.join(backup, 'backup.json');
    const genuine = path.join(work, `raced-${attempt}-genuine.json`);
    writeFileSync(genuine, readFileSync(indexFile));
    const page = 'state/pods/docs/page.txt';
    const forged = Buffer.from('a page of the attacker\n');
    writeFileSync(path.join(backup, page), forged);
    const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { files: Array<{ path: string; bytes: number; sha256: string }> };
    const entry = index.files.find((f) => f.path === page)!;
    entry.bytes = forged.length;
    entry.sha256 = createHash('sha256').update(forged).digest('hex');
    writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
    const racer = await swapAfterFirstRead(backup, 'backup.json', genuine);
    const run = await runAgentboxAsync(['backup', 'verify', backup, '--signed-by', npub], { cwd: work });
    t.ok(await racer.swapped(), 'the index was swapped after its first read');
    if (run.code === 0) forgedRuns++;
    else t.match(run.stdout, /signs another index than .*backup\.json: the index was changed after the box signed it/);
  }
  t.equal(forgedRuns, 0, 'no rewritten backup passed as the one the box signed');
});
