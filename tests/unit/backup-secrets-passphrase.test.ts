// Secrets sealed with a passphrase: a passphrase too short is refused before the backup copies anything (not after every
// store was copied), and a sealed file edited to ask scrypt for hours of work is refused at once, not run.
import t from 'tap';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSecrets, sealSecrets, SecretsSealError } from '../../management-api/src/backup/secrets-seal.js';
import { runAgentbox } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-passphrase-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

t.test('a passphrase too short is refused before anything is copied', async (t) => {
  const root = path.join(work, 'box');
  mkdirSync(path.join(root, 'var/lib/agentbox/pods/docs'), { recursive: true });
  writeFileSync(path.join(root, 'var/lib/agentbox/pods/docs/page.txt'), 'a page\n');
  const short = path.join(work, 'short');
  writeFileSync(short, 'seven!!\n');
  const run = runAgentbox(['backup', '--root', root, '--to', path.join(work, 'backup'), '--with-secrets', '--passphrase-file', short], { cwd: work });
  t.equal(run.code, 1, run.stderr);
  t.match(run.stderr, 'the passphrase is shorter than 8 characters');
  t.notMatch(run.stderr, /SQLite store|pods…/, 'refused before any store is copied');
  t.same(
    readdirSync(work).filter((n) => n.startsWith('backup')),
    [],
    'nothing left',
  );
});

t.test('scrypt parameters asking for hours of work or too much memory are refused at once', async (t) => {
  const sealed = JSON.parse(await sealSecrets({ 'identity.key': Buffer.from('k') }, 'correct horse battery staple')) as { kdf: Record<string, number> };
  for (const [what, kdf] of [
    ['p = 10^6 (hours of work)', { p: 1_000_000 }],
    ['r = 10^4 (1.2 GiB a block)', { r: 10_000 }],
    ['N = 2^20 with r = 8 (1 GiB)', { N: 2 ** 20 }],
  ] as const) {
    const edited = JSON.stringify({ ...sealed, kdf: { ...sealed.kdf, ...kdf } });
    const started = performance.now();
    const opened = openSecrets(edited, 'correct horse battery staple');
    // The hang the edit aims at is what is checked: refused, not run until the test's timeout.
    const outcome = await Promise.race([
      opened.then(
        () => 'opened',
        (err: unknown) => err,
      ),
      new Promise((r) => setTimeout(() => r('still running after 5 s'), 5000).unref()),
    ]);
    t.type(outcome, SecretsSealError, what);
    t.match((outcome as Error).message, 'the sealed secrets name scrypt parameters out of range', what);
    t.ok(performance.now() - started < 1000, `${what}: refused before any derivation`);
  }
});
