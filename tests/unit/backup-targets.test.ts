// Where the real CLI's `backup --to` and `restore --root` write, as the user names it: a place no directory can be made in
// (/proc, /sys) fails at once naming it (never the endless loop of a recursive mkdir on /proc), a file or a path through one
// is said as such, a missing parent is asked for, `.TAR` is a tar in any case and a compressed name is refused; a key file a
// restore did not use is said, and an identity that does not open the secrets is refused naming the keys. A path through a
// loop of links is said as that, never a stack trace.
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupBoxRoot } from '../helpers/backup-box-root.js';
import { runAgentbox } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-targets-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const agentbox = (...args: string[]) => runAgentbox(args, { cwd: work });

const root = backupBoxRoot(path.join(work, 'box'));
const backup = path.join(work, 'backup');
const aFile = path.join(work, 'a-file');
writeFileSync(aFile, 'not a directory\n');
// Names no other run uses, in case one is ever made.
const unique = `agentbox-test-${process.pid}`;

t.test('a place no directory can be made in fails at once, naming it; nothing is left', async (t) => {
  t.equal(agentbox('backup', '--root', root, '--to', backup).code, 0);
  for (const [args, said] of [
    [['restore', backup, '--root', `/proc/${unique}`], `cannot make /proc/${unique}.restoring-`],
    [['restore', backup, '--root', `/sys/${unique}`], `cannot make /sys/${unique}.restoring-`],
    [['backup', '--root', root, '--to', `/proc/${unique}`], `cannot make /proc/${unique}.partial-`],
    [['backup', '--root', root, '--to', `/proc/${unique}.tar`], `cannot make /proc/${unique}.tar.partial-`],
  ] as const) {
    const run = agentbox(...args);
    t.same([run.code, run.signal], [1, null], `${args.join(' ')}: exits 1, not ended by the helper's timeout`);
    t.match(run.stderr, said, 'names the directory it could not make');
  }
  t.match(agentbox('restore', backup, '--root', `/proc/${unique}`).stderr, '/proc takes no new directories');
});

t.test('a file, a path through a file or a missing parent is said as what it is', async (t) => {
  t.match(agentbox('restore', backup, '--root', aFile), { code: 1, stderr: `${aFile} is a file, not a directory: restore into a new root` });
  t.match(agentbox('restore', backup, '--root', path.join(aFile, 'sub')), {
    code: 1,
    stderr: `${path.join(aFile, 'sub')} cannot be made: ${aFile} is a file, not a directory`,
  });
  t.match(agentbox('restore', backup, '--root', path.join(work, 'missing/deeper')), {
    code: 1,
    stderr: `its parent directory ${path.join(work, 'missing')} does not exist (make it first)`,
  });
  t.match(agentbox('backup', '--root', root, '--to', aFile), { code: 1, stderr: `${aFile} is a file, not a directory: back up into a new` });
  t.match(agentbox('backup', '--root', root, '--to', backup), { code: 1, stderr: `${backup} is not empty: back up into a new` });
  t.match(agentbox('backup', '--root', root, '--to', path.join(work, 'missing/b.tar')), {
    code: 1,
    stderr: `its parent directory ${path.join(work, 'missing')} does not exist`,
  });
  t.notOk(existsSync(path.join(work, 'missing')), 'no parent made');
  t.same(
    readdirSync(work).filter((n) => /\.(partial|restoring)-/.test(n)),
    [],
    'nothing left beside',
  );
});

t.test('a path through a loop of links is said as that, exit 1, never a stack trace', async (t) => {
  const loop = path.join(work, 'loop-a');
  symlinkSync(path.join(work, 'loop-b'), loop);
  symlinkSync(loop, path.join(work, 'loop-b'));
  for (const args of [
    ['restore', backup, '--root', path.join(loop, 'new')],
    ['backup', '--root', root, '--to', path.join(loop, 'new')],
  ]) {
    const run = agentbox(...args);
    t.same([run.code, run.signal], [1, null], args[0]!);
    t.match(run.stderr, `${path.join(loop, 'new')} cannot be reached (a loop of symbolic links on the way to it)`, args[0]!);
    t.notMatch(run.stderr, /\n\s+at /, `${args[0]}: no stack trace`);
  }
  t.match(agentbox('restore', backup, '--root', loop), {
    code: 1,
    stderr: `${loop} is a symbolic link to ${path.join(work, 'loop-b')}, which cannot be followed (a loop of symbolic links on the way to it)`,
  });
});

t.test('FILE.TAR is a tar in any case; a compressed tar name is refused', async (t) => {
  const upper = path.join(work, 'BOX.TAR');
  t.equal(agentbox('backup', '--root', root, '--to', upper).code, 0);
  t.ok(statSync(upper).isFile(), 'one file, not a directory');
  t.match(agentbox('backup', 'verify', upper), { code: 0, stdout: /whole/ });
  const gz = agentbox('backup', '--root', root, '--to', path.join(work, 'box.tar.gz'));
  t.match(gz, { code: 2, stderr: /a backup is written as a plain tar/ });
  t.notOk(existsSync(path.join(work, 'box.tar.gz')));
});

t.test('a key file a restore does not use is said; an identity that does not open the secrets is refused naming the keys', async (t) => {
  const passphraseFile = path.join(work, 'passphrase');
  writeFileSync(passphraseFile, 'correct horse battery staple\n');
  const plain = agentbox('restore', backup, '--root', path.join(work, 'restored-plain'), '--passphrase-file', passphraseFile);
  t.equal(plain.code, 0, plain.stderr);
  t.match(plain.stderr, `--passphrase-file ${passphraseFile} was not used: this backup holds no sealed secrets`);

  const keys = ['sealer', 'other'].map((name) => {
    const file = path.join(work, `${name}.key`);
    return { file, recipient: (JSON.parse(agentbox('backup', 'keygen', '--out', file, '--json').stdout) as { recipient: string }).recipient };
  });
  const sealed = path.join(work, 'sealed');
  t.equal(agentbox('backup', '--root', root, '--to', sealed, '--with-secrets', '--recipient', keys[0]!.recipient).code, 0);
  const wrong = agentbox('restore', sealed, '--root', path.join(work, 'restored-wrong'), '--identity-file', keys[1]!.file);
  t.equal(wrong.code, 1);
  t.match(wrong.stderr, `they were sealed to ${keys[0]!.recipient}, the identities given are those of ${keys[1]!.recipient}`);
  t.notOk(existsSync(path.join(work, 'restored-wrong')));
  const mixed = agentbox('restore', sealed, '--root', path.join(work, 'restored-mixed'), '--identity-file', keys[0]!.file, '--passphrase-file', passphraseFile);
  t.equal(mixed.code, 0, mixed.stderr);
  t.match(mixed.stderr, `--passphrase-file ${passphraseFile} was not used: this backup sealed its secrets to recipient keys`);
});
