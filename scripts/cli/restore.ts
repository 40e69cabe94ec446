// `agentbox restore`: a backup into a new root, checked whole first.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BackupError } from '../../management-api/src/backup/create-backup.js';
import { restoreBackup } from '../../management-api/src/backup/restore-backup.js';
import type { BackupIndex } from '../../management-api/src/backup/backup-format.js';
import { SecretsSealError } from '../../management-api/src/backup/secrets-seal.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { signatureOptions } from './backup-signer.js';
import { UsageError, UserError } from './cli-errors.js';
import { readIdentities } from './backup-keys.js';
import { readPassphrase } from './backup-passphrase.js';

/** Where a box root keeps the manifest it runs: its place in the image, under the root. */
const manifestUnderRoot = runtimePaths({ AGENTBOX_ROOT: '/' }).manifestFile;

export const usage = `Usage: agentbox restore BACKUP --root DIR [--passphrase-file FILE | --identity-file FILE | --without-secrets] [--signed-by KEY [--not-before TIME]] [--json]

Restore the backup BACKUP (a directory, or a FILE.tar) into a new box root DIR (a missing or empty directory, in a
directory that exists: anything else is refused, saying what is there; a link is written through, a mount point or a
place inside BACKUP is refused). DIR.restoring-PID is made first, so a place that takes no new directory fails at once.
The backup is checked whole first (as \`agentbox backup verify\` does), and each file again as it is copied; a damaged
one is refused, naming the file. Then start the box on it:
  agentbox up --local --manifest DIR${manifestUnderRoot} --root DIR

Options:
  --root DIR             the new root
  --passphrase-file FILE the passphrase the secrets were sealed with (or $AGENTBOX_BACKUP_PASSPHRASE);
                         the identity and event-log keys are written 0600 under DIR
  --identity-file FILE   for secrets sealed to recipient keys: an age identity file (AGE-SECRET-KEY-1…
                         lines, as agentbox backup keygen or age-keygen write it) one of whose keys opens them
  --without-secrets      restore a backup that holds sealed secrets without them: the box makes a
                         new identity at its first start
                         (a key file the backup has no use for is said on stderr; the restore goes on)
  --signed-by KEY        restore only a backup whose index this box identity signed (npub1… or hex, as
                         agentbox identity prints it): an unsigned one, or one signed by another key, is refused
  --not-before TIME      with --signed-by: refuse a backup made before TIME (an ISO-8601 time, or an age such
                         as 26h or 7d): an older backup the box signed, put in the place of the latest, is refused
  --json                 print {root, files, eventLog, secrets, signedBy, createdAt}
  -h, --help             show this help

Exit codes: 0 restored, 1 the restore failed (a damaged backup, a passphrase or identity that does not open its secrets,
a root that is taken or cannot be made, a full disk: the message names the file; nothing is left), 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      root: { type: 'string' },
      'passphrase-file': { type: 'string' },
      'identity-file': { type: 'string' },
      'without-secrets': { type: 'boolean' },
      'signed-by': { type: 'string' },
      'not-before': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('give the backup directory: agentbox restore BACKUP --root DIR');
  if (!values.root) throw new UsageError('--root DIR (the new root) is required');
  if (values['without-secrets'] && (values['passphrase-file'] !== undefined || values['identity-file'] !== undefined))
    throw new UsageError('give --passphrase-file or --identity-file, or --without-secrets, not both');
  // Read (and taken out of the environment) in every case, used only when the secrets are.
  const given = readPassphrase(values['passphrase-file']);
  const passphrase = values['without-secrets'] ? undefined : given;
  const identities = values['without-secrets'] ? undefined : readIdentities(values['identity-file']);
  const root = path.resolve(values.root);
  const held = signatureOptions(values['signed-by'], values['not-before']);
  try {
    const index = await restoreBackup({
      from: path.resolve(positionals[0]!),
      root,
      ...(passphrase !== undefined ? { passphrase } : {}),
      ...(identities !== undefined ? { identities } : {}),
      ...(values['without-secrets'] ? { withoutSecrets: true } : {}),
      ...held,
      progress: (step) => process.stderr.write(`agentbox restore: ${step}…\n`),
    });
    const secrets = index.secrets && !values['without-secrets'] ? index.secrets.names : [];
    for (const note of unusedKeys(index, values['passphrase-file'], values['identity-file'])) process.stderr.write(`agentbox restore: ${note}\n`);
    if (values.json)
      process.stdout.write(
        `${JSON.stringify({ root, files: index.files.length, eventLog: index.eventLog ?? null, secrets, signedBy: held.signedBy ?? null, createdAt: index.createdAt })}\n`,
      );
    const manifest = runtimePaths({ AGENTBOX_ROOT: root }).manifestFile;
    process.stderr.write(
      `agentbox restore: restored ${index.files.length} files (a backup made ${index.createdAt}) into ${root}${secrets.length ? ` (secrets: ${secrets.join(', ')})` : ''}; start it: agentbox up --local --manifest ${manifest} --root ${root}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BackupError || err instanceof SecretsSealError) throw new UserError(err.message, 1);
    throw err;
  }
}

/** The key files given that did not open the secrets, said so (a box restored without its identity makes a new one). */
function unusedKeys(index: BackupIndex, passphraseFile: string | undefined, identityFile: string | undefined): string[] {
  const sealed = index.secrets?.cipher;
  const held =
    sealed === undefined ? 'holds no sealed secrets' : sealed === 'age' ? 'sealed its secrets to recipient keys' : 'sealed its secrets with a passphrase';
  const notes: string[] = [];
  if (passphraseFile !== undefined && sealed !== 'aes-256-gcm') notes.push(`--passphrase-file ${passphraseFile} was not used: this backup ${held}`);
  if (identityFile !== undefined && sealed !== 'age') notes.push(`--identity-file ${identityFile} was not used: this backup ${held}`);
  if (notes.length && sealed === undefined) notes.push('the restored box makes a new identity at its first start');
  return notes;
}
