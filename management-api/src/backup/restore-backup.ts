// `agentbox restore`: a backup into a new root, checked whole first (a damaged backup is refused,
// naming the file), staged under a temporary name and renamed into place, secrets 0600.
import { chmod, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runtimePaths } from '../runtime-paths.js';
import { BACKED_UP_SECRETS, INDEX_FILE, MANIFEST_COPY, SECRETS_FILE, type BackupIndex } from './backup-format.js';
import { BackupError, writeFailure } from './backup-errors.js';
import { isInside, makeNewDir, moveIntoPlace, resolveNamed, whyNotNew } from './target-dir.js';
import { removedOnSignal } from './removed-on-signal.js';
import { SecretsSealError } from './secrets-seal.js';
import { syncDirectory } from '../durable-fs.js';
import { openSecretsWith } from './secrets-age.js';
import { openSecrets } from './secrets-seal.js';
import { verifyBackup, type VerifyOptions } from './verify-backup.js';
import { withBackupDir } from './backup-archive.js';
import { KEPT_MODE } from './copy-files.js';
import { copyChecked, readChecked } from './copy-checked.js';

/** What to restore and where. */
/** A restore's options; those of VerifyOptions (signedBy, notBefore) hold the backup to the same as `backup verify`. */
export interface RestoreOptions extends VerifyOptions {
  from: string;
  /** The new root: missing or empty. */
  root: string;
  /** The passphrase the secrets were sealed with; required when the backup holds them sealed so, unless `withoutSecrets`. */
  passphrase?: string;
  /** age identities, one of which opens secrets sealed to recipient keys. */
  identities?: string[];
  /** Restore without the sealed secrets: the box makes a new identity (and event-log key) at its first start. */
  withoutSecrets?: boolean;
  progress?: (step: string) => void;
}

/** Restore; resolves to the backup's index. */
export async function restoreBackup(options: RestoreOptions): Promise<BackupIndex> {
  const from = path.resolve(options.from);
  const root = await resolveNamed(path.resolve(options.root));
  const say = options.progress ?? (() => undefined);
  const taken = await whyNotNew(root, 'directory');
  if (taken) throw new BackupError(`${taken}: restore into a new root, a missing or empty directory (a box never restores over another's state)`);
  const source = await stat(from).catch(() => undefined);
  if (!source) throw new BackupError(`${from}: no such backup`);
  if (source.isDirectory() && (await isInside(root, from)))
    throw new BackupError(`${root} is inside the backup ${from}, which would then hold files its index does not name: restore to a place outside it`);
  const staging = `${root}.restoring-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  // Removed on SIGINT or SIGTERM as on a failure.
  const release = removedOnSignal(staging);
  try {
    // Made before the backup is unpacked or checked: a place that takes no directory (read-only, not
    // this user's, /proc) fails at once, not after minutes of work.
    await makeNewDir(staging, 0o755, `${staging} (the new root is written there, then renamed ${root})`);
    say(`checking ${from}`);
    return await withBackupDir(from, (dir, shown) => restoreFrom(dir, shown, staging, root, options));
  } catch (err) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    // An archive that cannot be unpacked (a member refused, the file missing) is a backup that is not whole.
    if (err instanceof BackupError || err instanceof SecretsSealError || !(err instanceof Error)) throw err;
    throw new BackupError(`the backup is not whole: ${err.message}`);
  } finally {
    release();
  }
}

async function restoreFrom(from: string, shown: (text: string) => string, staging: string, root: string, options: RestoreOptions): Promise<BackupIndex> {
  const say = options.progress ?? (() => undefined);
  const check = await verifyBackup(from, options);
  check.problems = check.problems.map(shown);
  if (!check.ok || !check.index)
    throw new BackupError(
      `the backup is not whole: ${check.problems[0]}${check.problems.length > 1 ? ` (and ${check.problems.length - 1} more problems: agentbox backup verify lists them)` : ''}`,
    );
  const index = check.index;
  let secrets: Record<string, Buffer> | undefined;
  if (index.secrets && !options.withoutSecrets) {
    const recipients = index.secrets.cipher === 'age' ? index.secrets.recipients : undefined;
    const toRecipients = recipients !== undefined;
    if (toRecipients ? options.identities === undefined : options.passphrase === undefined)
      throw new BackupError(
        toRecipients
          ? `this backup holds secrets (the identity key) sealed to recipient keys (${recipients.join(', ')}): give an identity that opens them (--identity-file FILE), or restore --without-secrets for a new identity`
          : 'this backup holds sealed secrets (the identity key): give the passphrase (--passphrase-file FILE), or restore --without-secrets for a new identity',
      );
    say('opening the sealed secrets');
    const file = path.join(from, SECRETS_FILE);
    const entry = index.files.find((f) => f.path === SECRETS_FILE);
    // The index says secrets are sealed but lists no file of them: verify saw no such file either.
    if (!entry) throw new BackupError(`${shown(file)} is not in the index ${shown(path.join(from, INDEX_FILE))}: the backup was changed`);
    // Read once and checked against the index in that read: an age file sealed to the recipient keys the
    // index names (anyone can make one) put in its place after the check would give the restored box its sender's identity.
    const sealed = await readChecked(file, entry, shown);
    secrets = toRecipients ? await openSecretsWith(sealed, options.identities!, recipients) : await openSecrets(sealed.toString('utf8'), options.passphrase!);
    // Anyone holding a recipient key (the index names them) can seal an age file: what it holds is
    // written into the secrets directory only when it is what a backup seals, never an api-key of its sender's choosing.
    const foreign = Object.keys(secrets).find((name) => !(BACKED_UP_SECRETS as readonly string[]).includes(name));
    if (foreign !== undefined)
      throw new BackupError(
        `${shown(file)} holds ${JSON.stringify(foreign)}, which a backup never seals (only ${BACKED_UP_SECRETS.join(' and ')}): it was not sealed by agentbox backup`,
      );
    // What the restore reports (--json's secrets) is the index's list: it must be what was opened.
    const opened = Object.keys(secrets).sort();
    if (opened.join('\n') !== [...index.secrets.names].sort().join('\n'))
      throw new BackupError(
        `${shown(file)} holds ${opened.join(', ') || 'no secret'}, ${shown(path.join(from, INDEX_FILE))} says ${index.secrets.names.join(', ') || 'none'}: the backup was changed`,
      );
  }
  const paths = runtimePaths({ AGENTBOX_ROOT: staging });
  try {
    // The skeleton a fresh box has (searchable by agents' uids, as `agentbox up` makes it); the stores inside stay 0700.
    for (const d of [staging, path.dirname(paths.manifestFile), paths.stateDir, paths.runDir, paths.workspaceDir, paths.logDir]) {
      await mkdir(d, { recursive: true, mode: 0o755 });
      await chmod(d, 0o755);
    }
    say(`restoring ${index.files.length} files`);
    for (const entry of index.files) {
      const [top, ...rest] = entry.path.split('/');
      let target: string | undefined;
      if (top === 'state') target = path.join(paths.stateDir, ...rest);
      else if (entry.path === MANIFEST_COPY) target = paths.manifestFile;
      if (!target) continue;
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await copyChecked(path.join(from, ...entry.path.split('/')), target, entry, shown);
      // Permission bits only (verify refused any other): never setuid, setgid or sticky, whatever an edited index says.
      await chmod(target, entry.mode & KEPT_MODE);
    }
    await mkdir(paths.secretsDir, { recursive: true, mode: 0o700 });
    await chmod(paths.secretsDir, 0o700);
    for (const [name, content] of Object.entries(secrets ?? {})) {
      await writeFile(path.join(paths.secretsDir, name), content, { mode: 0o600, flush: true });
      content.fill(0);
    }
    // Every file was fsynced as it was copied; their directory entries too, before the name says the root is whole.
    const dirs = await readdir(staging, { recursive: true, withFileTypes: true });
    for (const d of dirs.filter((e) => e.isDirectory())) await syncDirectory(path.join(d.parentPath, d.name));
    await syncDirectory(staging);
    await moveIntoPlace(staging, root, 'directory');
    await syncDirectory(path.dirname(root));
    return index;
  } catch (err) {
    // Told before the staging is removed: the room it took is what says whether the disk was full.
    throw err instanceof BackupError || !(err as NodeJS.ErrnoException).code
      ? err
      : await writeFailure(err, `the restore into ${root}`, path.dirname(staging), 'free some space or restore elsewhere (--root)');
  }
}
