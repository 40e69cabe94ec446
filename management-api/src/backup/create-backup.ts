// `agentbox backup`: a whole, checkable copy of a box's state taken while it runs, written under a
// temporary name and renamed into place only once its index (written last) is on disk: a backup
// cut short (kill -9, a full disk) never looks complete.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runtimePaths } from '../runtime-paths.js';
import { TMP_PREFIX } from '../adapters/pods/fs-atomic.js';
import {
  BACKED_UP_SECRETS,
  BACKUP_FORMAT,
  EVENT_LOG_DIR,
  FILE_TREES,
  INDEX_FILE,
  MANIFEST_COPY,
  SECRETS_FILE,
  SQLITE_STORES,
  type BackupIndex,
} from './backup-format.js';
import { backupSqlite } from './copy-sqlite.js';
import { copyEventLog } from './copy-event-log.js';
import { copyTree } from './copy-files.js';
import { syncDirectory } from '../durable-fs.js';
import { indexFiles } from './backup-index.js';
import { signIndex } from './index-signature.js';
import { checkRecipients, sealSecretsTo } from './secrets-age.js';
import { checkPassphrase, sealSecrets } from './secrets-seal.js';
import { BackupError, writeFailure } from './backup-errors.js';
import { isInside, makeNewDir, moveIntoPlace, resolveNamed, whyNotNew } from './target-dir.js';
import { removedOnSignal } from './removed-on-signal.js';

export { BackupError } from './backup-errors.js';
import { isArchiveName, packBackup } from './backup-archive.js';
import { snapshotStoreProblems } from './snapshot-check.js';
import { damagedChunks } from './snapshot-chunks.js';

/** What to back up and where. */
export interface BackupOptions {
  /** The box's root (its state under var/lib/agentbox). */
  root: string;
  /** The backup to create: a directory (missing, or empty), or a new tar file when it ends in `.tar`. */
  to: string;
  /** Seal the identity and event-log keys into the backup with this passphrase... */
  passphrase?: string;
  /** ...or to these age recipient keys (one of the two, not both). */
  recipients?: string[];
  /** Told each step as it starts. */
  progress?: (step: string) => void;
}

/** Copies of the snapshot store made before giving up on one that a sweep keeps changing under the copy. */
const SNAPSHOT_COPY_TRIES = 3;

/**
 * Copy the pods or the snapshot store. A pod's staged writes and a snapshot's scratch space are
 * not data, nor are snapshot clones (btrfs snapshots of what the packs hold: a restored box builds
 * forks by copying until its next snapshots). Snapshot summaries are copied before the packs; a copy that still misses a chunk (a
 * sweep repacked meanwhile) is made again.
 */
async function copyStoreTree(from: string, to: string, tree: (typeof FILE_TREES)[number]): Promise<void> {
  const skip = (rel: string) => path.basename(rel).startsWith(TMP_PREFIX) || (tree === 'snapshots' && (rel === 'tmp' || rel === 'clones'));
  for (let attempt = 1; ; attempt++) {
    await copyTree(from, to, { skip, first: ['manifests'] });
    if (tree !== 'snapshots') return;
    const problems = snapshotStoreProblems(to);
    if (problems.length === 0) return refuseDamagedChunks(from, to);
    if (attempt === SNAPSHOT_COPY_TRIES) throw new BackupError(`the snapshot store ${from} changed during ${attempt} copies: ${problems[0]}; try again`);
    await rm(to, { recursive: true, force: true });
  }
}

/**
 * Refuse a snapshot store copied with a chunk that does not match its hash. The copy holds the
 * store's bytes as they are, so the damage is the box's own: no sweep during the copy makes it, and
 * copying again would not mend it. A backup of it would never verify nor restore.
 */
async function refuseDamagedChunks(from: string, copy: string): Promise<void> {
  const damaged = (await damagedChunks(copy)).map((line) => line.split(copy).join(from));
  if (damaged.length === 0) return;
  const id = /^snapshot (\S+),/.exec(damaged[0]!)?.[1] ?? 'ID';
  throw new BackupError(
    `the snapshot store ${from} is damaged: ${damaged[0]}${damaged.length > 1 ? ` (and ${damaged.length - 1} more damaged chunks)` : ''}. ` +
      `The box cannot build that snapshot either: delete it (agentbox snapshot rm ${id}) and back up again`,
  );
}

/** Make the backup; resolves to its index. */
export async function createBackup(options: BackupOptions): Promise<BackupIndex & { signedBy?: string }> {
  const root = path.resolve(options.root);
  const to = await resolveNamed(path.resolve(options.to));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  if (!existsSync(paths.stateDir)) throw new BackupError(`no box state under ${root} (${paths.stateDir} is missing): pass the box's --root`);
  const taken = await whyNotNew(to, isArchiveName(to) ? 'file' : 'directory');
  if (taken) throw new BackupError(`${taken}: back up into a new ${isArchiveName(to) ? 'file' : 'or empty directory, or a new FILE.tar'}`);
  if (await isInside(to, paths.stateDir))
    throw new BackupError(`${to} is inside the box's state ${paths.stateDir}, which the backup copies (into itself): back up to a place outside it`);
  if (options.passphrase !== undefined && options.recipients !== undefined)
    throw new BackupError('seal the secrets with a passphrase or to recipient keys, not both');
  if (options.recipients !== undefined) checkRecipients(options.recipients);
  if (options.passphrase !== undefined) checkPassphrase(options.passphrase);
  const partial = `${to}.partial-${process.pid}`;
  const partialArchive = `${partial}.tar`;
  await rm(partial, { recursive: true, force: true });
  const say = options.progress ?? (() => undefined);
  // Removed on SIGINT or SIGTERM as on a failure: only kill -9 (or a power loss) leaves it.
  const release = removedOnSignal(partial);
  const releaseArchive = removedOnSignal(partialArchive);
  try {
    await makeNewDir(partial, 0o700, `${partial} (the backup is written there, then renamed ${to})`);
    const state = path.join(partial, 'state');
    const manifest = existsSync(paths.manifestFile);
    if (manifest) {
      await mkdir(path.dirname(path.join(partial, MANIFEST_COPY)), { mode: 0o700 });
      await copyFile(paths.manifestFile, path.join(partial, MANIFEST_COPY));
    }
    for (const store of SQLITE_STORES) {
      say(`SQLite store ${store} (online backup)`);
      await mkdir(path.dirname(path.join(state, store)), { recursive: true, mode: 0o700 });
      await backupSqlite(path.join(paths.stateDir, store), path.join(state, store));
    }
    say('event log (up to its latest signed checkpoint)');
    const eventLog = await copyEventLog(path.join(paths.stateDir, EVENT_LOG_DIR), path.join(state, EVENT_LOG_DIR));
    for (const tree of FILE_TREES) {
      say(tree === 'snapshots' ? 'snapshots (every chunk checked against its sha256)' : tree);
      await copyStoreTree(path.join(paths.stateDir, tree), path.join(state, tree), tree);
    }
    let secrets: BackupIndex['secrets'];
    if (options.passphrase !== undefined || options.recipients !== undefined) {
      say(`secrets (sealed ${options.passphrase !== undefined ? 'with the passphrase' : 'to the recipient keys'})`);
      const found: Record<string, Buffer> = {};
      for (const name of BACKED_UP_SECRETS) {
        const file = path.join(paths.secretsDir, name);
        if (existsSync(file)) found[name] = await readFile(file);
      }
      const sealed = options.passphrase !== undefined ? await sealSecrets(found, options.passphrase) : await sealSecretsTo(found, options.recipients!);
      for (const content of Object.values(found)) content.fill(0);
      await writeFile(path.join(partial, SECRETS_FILE), sealed, { mode: 0o600 });
      secrets =
        options.passphrase !== undefined
          ? { names: Object.keys(found), cipher: 'aes-256-gcm', kdf: 'scrypt' }
          : { names: Object.keys(found), cipher: 'age', recipients: [...options.recipients!] };
    }
    say('index (hashing and syncing every file)');
    const index: BackupIndex = {
      format: BACKUP_FORMAT,
      createdAt: new Date().toISOString(),
      source: root,
      manifest,
      ...(eventLog ? { eventLog } : {}),
      ...(secrets ? { secrets } : {}),
      files: await indexFiles(partial),
    };
    await writeFile(path.join(partial, INDEX_FILE), `${JSON.stringify(index, null, 2)}\n`, { mode: 0o644, flush: true });
    // Signed by the box's identity when it is there to read: a backup rewritten whole then no longer carries it.
    const identity = (await readFile(paths.identityKeyFile, 'utf8').catch(() => '')).trim();
    const signedBy = /^[0-9a-f]{64}$/.test(identity) ? await signIndex(partial, identity, new Date(index.createdAt)) : undefined;
    await syncDirectory(partial);
    if (isArchiveName(to)) {
      say(`packing ${to}`);
      await packBackup(partial, partialArchive);
      await moveIntoPlace(partialArchive, to, 'file');
      await rm(partial, { recursive: true, force: true });
    } else await moveIntoPlace(partial, to, 'directory');
    await syncDirectory(path.dirname(to));
    return { ...index, ...(signedBy ? { signedBy } : {}) };
  } catch (err) {
    // Told before what was written is removed: the room it took is what says whether the disk was full.
    const failure = err instanceof BackupError || !(err as NodeJS.ErrnoException).code ? err : await writeFailure(err, `the backup ${to}`, path.dirname(to));
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    await rm(partialArchive, { force: true }).catch(() => undefined);
    throw failure;
  } finally {
    release();
    releaseArchive();
  }
}
