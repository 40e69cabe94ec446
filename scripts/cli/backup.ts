// `agentbox backup`: back up a box's state while it runs (beads, memory, the event log up to its
// checkpoint, pods, snapshots; the identity sealed with a passphrase or to recipient keys on request) into a new directory.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BackupError, createBackup } from '../../management-api/src/backup/create-backup.js';
import { isCompressedTarName } from '../../management-api/src/backup/backup-archive.js';
import { askForCheckpoint } from './backup-checkpoint.js';
import { runAsBackground } from './background-priority.js';
import { SecretsSealError } from '../../management-api/src/backup/secrets-seal.js';
import { UsageError, UserError } from './cli-errors.js';
import { readRecipients } from './backup-keys.js';
import { readPassphrase } from './backup-passphrase.js';

export const usage = `Usage: agentbox backup [--root DIR] [--to DIR|FILE.tar] [--url URL] [--with-secrets [--passphrase-file FILE | --recipient KEY… | --recipients-file FILE]] [--json]

Back up the box under --root while it runs, into a new directory: the SQLite stores (beads, the
memory catalogue) through SQLite's online backup API, the event log up to a checkpoint the
running box is first asked to sign (so every event so far is in it), the pods, the workspace
snapshots (every chunk checked against its sha256: a damaged one fails the backup, naming its
snapshot) and the manifest, with an index of every file's size and SHA-256 (backup.json, written
last). A backup that fails (a full disk) or is interrupted (SIGINT, SIGTERM) leaves nothing; one
cut short by kill -9 is left as DIR.partial-PID, never as DIR.
Agents' working directories are not in it: snapshot them first (agentbox snapshot create).
It runs as background work (nice 10 and the idle I/O class, every thread), so the box's own
requests and fsyncs come first.

Options:
  --root DIR      the box's root (default: $AGENTBOX_ROOT, else ./.agentbox)
  --to DIR|FILE   where to write it: a new or empty directory, or a new FILE ending in .tar (any
                  case; a plain tar, never compressed), in a directory that exists (one file to
                  move off the machine; default: ./agentbox-backup-<date>-<time>); a link is
                  written through; a mount point or a place inside the box's state is refused
  --url URL       the running box's API, asked to sign an event log checkpoint first (default:
                  the box running under --root, as \`agentbox boxes\` lists it; a box in a
                  container needs it). Unreachable: the log goes up to its latest checkpoint
  --with-secrets  also the identity key and the event log's signing key, sealed with a passphrase
                  (scrypt, AES-256-GCM): from --passphrase-file FILE or $AGENTBOX_BACKUP_PASSPHRASE;
                  or to age recipient keys (X25519), so this machine holds no key that opens them:
  --recipient KEY       an age1… key (repeat it for several; any one's identity opens the secrets)
  --recipients-file FILE  recipient keys, one per line (# comments), as age -R reads them
                  Make a key pair with \`agentbox backup keygen --out FILE\` (or age-keygen).
                  The API key is never backed up: a restored box makes a new one
  --json          print the index backup.json on stdout: {format, createdAt, source, manifest,
                  eventLog (when there is a log), secrets (when sealed), files}
  -h, --help      show this help

Check a backup with \`agentbox backup verify DIR\`; restore it with \`agentbox restore DIR --root NEW\`.
Exit codes: 0 backed up, 1 the backup failed (the message names the file; nothing is left behind), 2 bad usage.`;

/** A default name that sorts by time and has no characters a shell quotes. */
function defaultTarget(now = new Date()): string {
  return `agentbox-backup-${now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      root: { type: 'string' },
      to: { type: 'string' },
      url: { type: 'string' },
      'with-secrets': { type: 'boolean' },
      'passphrase-file': { type: 'string' },
      recipient: { type: 'string', multiple: true },
      'recipients-file': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}" (the backup directory is --to DIR)`);
  const recipients = readRecipients(values.recipient, values['recipients-file']);
  if (recipients !== undefined && values['passphrase-file'] !== undefined)
    throw new UsageError('seal the secrets with --passphrase-file or to --recipient keys, not both');
  // The variable is ignored when recipient keys are given: they are the explicit choice.
  const given = readPassphrase(values['passphrase-file']);
  const passphrase = recipients === undefined ? given : undefined;
  if (values['with-secrets'] && passphrase === undefined && recipients === undefined)
    throw new UsageError(
      '--with-secrets needs a passphrase (--passphrase-file FILE or AGENTBOX_BACKUP_PASSPHRASE) or recipient keys (--recipient KEY, --recipients-file FILE)',
    );
  if (!values['with-secrets'] && (values['passphrase-file'] !== undefined || recipients !== undefined))
    throw new UsageError('--passphrase-file, --recipient and --recipients-file are used with --with-secrets');
  const root = path.resolve(values.root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox');
  const to = path.resolve(values.to ?? defaultTarget());
  if (isCompressedTarName(to))
    throw new UsageError(`--to ${values.to}: a backup is written as a plain tar (--to FILE.tar); compress it afterwards if you must`);
  const started = performance.now();
  // Background work beside a serving box: its requests, and their fsyncs, come first.
  const lowered = runAsBackground();
  if (!lowered.io)
    process.stderr.write("agentbox backup: the disk priority could not be lowered (no util-linux ionice?): the backup's writes queue with the box's\n");
  const asked = await askForCheckpoint(root, values.url);
  if (asked) process.stderr.write(`agentbox backup: ${asked}\n`);
  try {
    const index = await createBackup({
      root,
      to,
      ...(values['with-secrets'] ? (recipients !== undefined ? { recipients } : { passphrase: passphrase! }) : {}),
      progress: (step) => process.stderr.write(`agentbox backup: ${step}…\n`),
    });
    if (values.json) process.stdout.write(`${JSON.stringify(index)}\n`);
    const bytes = index.files.reduce((n, f) => n + f.bytes, 0);
    const log = index.eventLog ? `, ${index.eventLog.events} events${index.eventLog.checkpoint ? ' (to the signed checkpoint)' : ''}` : '';
    process.stderr.write(
      `agentbox backup: wrote ${to}: ${index.files.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB${log}${index.secrets ? ', secrets sealed' : ''}, ${index.signedBy ? `signed by ${index.signedBy}` : 'unsigned (the identity key is not readable here)'} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BackupError || err instanceof SecretsSealError) throw new UserError(err.message, 1);
    throw err;
  }
}
