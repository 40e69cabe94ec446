// Secrets sealed with a passphrase: a passphrase too short is refused before the backup copies anything (not after every
// store was copied), a sealed file edited to ask scrypt for hours of work is refused at once, not run, and a passphrase
// given in the environment is in no child's environment.
import t from 'tap';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

t.test('AGENTBOX_BACKUP_PASSPHRASE is in no child of the backup (ionice) whether it seals the secrets or not', async (t) => {
  const root = path.join(work, 'box-env');
  mkdirSync(path.join(root, 'var/lib/agentbox/pods/docs'), { recursive: true });
  writeFileSync(path.join(root, 'var/lib/agentbox/pods/docs/page.txt'), 'a page\n');
  // An ionice first on PATH that writes down the environment it was given.
  const bin = path.join(work, 'bin');
  mkdirSync(bin);
  const seen = path.join(work, 'ionice-env');
  writeFileSync(path.join(bin, 'ionice'), `#!/bin/sh\nenv >> "${seen}"\n`, { mode: 0o755 });
  const env = { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, AGENTBOX_BACKUP_PASSPHRASE: 'correct horse battery staple' };
  for (const args of [['--with-secrets'], []]) {
    rmSync(seen, { force: true });
    const to = path.join(work, `env-backup-${args.length}`);
    const run = runAgentbox(['backup', '--root', root, '--to', to, ...args], { cwd: work, env });
    t.equal(run.code, 0, run.stderr);
    const childEnv = readFileSync(seen, 'utf8');
    t.match(childEnv, /^PATH=/m, 'ionice ran');
    t.notMatch(childEnv, /correct horse battery staple|AGENTBOX_BACKUP_PASSPHRASE/, `${args.join(' ') || 'without secrets'}: not in its environment`);
  }
});
