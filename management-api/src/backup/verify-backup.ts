// `agentbox backup verify`: is a backup whole? Its index is read, every file it names must be there
// with its size and SHA-256, nothing else may be, the event log's chain and checkpoint must hold, and
// every snapshot must be readable back whole: every chunk it names in a pack, matching its sha256.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { verifyEventLog } from '../adapters/events/log-verify.js';
import { auditAgainstCheckpoint } from '../adapters/events/log-audit.js';
import { TLOG_FILES } from '../adapters/events/log-checkpoints.js';
import { BACKUP_FORMAT, EVENT_LOG_DIR, INDEX_FILE, SIGNATURE_FILE, type BackupIndex } from './backup-format.js';
import { indexSigner } from './index-signature.js';
import { digestFile, listFiles, NotAFileError } from './backup-index.js';
import { entryProblems } from './index-entries.js';
import { snapshotStoreProblems } from './snapshot-check.js';
import { damagedChunks } from './snapshot-chunks.js';
import { withBackupDir } from './backup-archive.js';
import { openRegularFile } from './regular-file.js';

/** What checking a backup found: its problems name the file. */
export interface BackupCheck {
  ok: boolean;
  dir: string;
  index?: BackupIndex;
  files: number;
  bytes: number;
  problems: string[];
  /** The npub whose identity signed the index; absent when the backup is unsigned. */
  signedBy?: string;
  /** When the backup was made, as its index says (signed with it when the backup is signed). */
  createdAt?: string;
}

/** What a check holds the backup to beyond being whole. */
export interface VerifyOptions {
  /** The npub that must have signed the index (a backup unsigned or signed by another key is refused). */
  signedBy?: string;
  /**
   * An ISO time the backup must not have been made before (its index's `createdAt`). Only worth
   * anything with `signedBy`: an unsigned index says whatever time its writer put in it.
   */
  notBefore?: string;
}

/**
 * Read and check the index of the backup in `dir`, answered with its bytes as read (the signature is
 * checked over these, never over a second read); throws a message that says what is wrong.
 */
export async function readIndex(dir: string): Promise<{ index: BackupIndex; bytes: Buffer }> {
  const file = path.join(dir, INDEX_FILE);
  if (!existsSync(dir)) throw new Error(`${dir}: no such backup`);
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: ${dir} is not a complete backup (a backup cut short is left as <dir>.partial-<pid> and never has one)`);
  }
  const bytes = await readIndexBytes(file);
  let index: BackupIndex;
  try {
    index = JSON.parse(bytes.toString('utf8')) as BackupIndex;
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}): the backup is damaged`);
  }
  if (typeof index !== 'object' || index === null || Array.isArray(index))
    throw new Error(`${file} is not a backup's index (no JSON object): the backup is damaged`);
  if (index.format !== BACKUP_FORMAT) throw new Error(`${file}: format ${JSON.stringify(index.format)} is not ${BACKUP_FORMAT}`);
  if (!Array.isArray(index.files)) throw new Error(`${file}: no file list`);
  if (index.secrets !== undefined && !wellFormedSecrets(index.secrets))
    throw new Error(`${file}: its secrets entry is neither sealed with a passphrase nor to recipient keys: the backup is damaged`);
  return { index, bytes };
}

/** More than any backup's index holds (some 150 bytes a file): a larger one is not read into memory. */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

/**
 * The index's bytes, read only from a regular file: a FIFO in its place hung verify forever, and a
 * link to /dev/zero read until memory ran out.
 */
async function readIndexBytes(file: string): Promise<Buffer> {
  const opened = await openRegularFile(file, MAX_INDEX_BYTES);
  if ('refused' in opened) {
    if (opened.refused === 'a symbolic link') throw new Error(`${file} is a symbolic link, not a file: a backup's index is a file (the backup is damaged)`);
    if (opened.refused === 'too large') throw new Error(`${file} is larger than any backup's index: the backup is damaged`);
    throw new Error(`${file} is not a regular file: the backup is damaged`);
  }
  const { handle } = opened;
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The index's `secrets`: names, and how they were sealed (a passphrase, or age recipient keys). */
function wellFormedSecrets(secrets: unknown): boolean {
  const s = secrets as { names?: unknown; cipher?: unknown; kdf?: unknown; recipients?: unknown };
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (typeof s !== 'object' || s === null || !strings(s.names)) return false;
  if (s.cipher === 'aes-256-gcm') return s.kdf === 'scrypt';
  return s.cipher === 'age' && strings(s.recipients);
}

/** Check the backup at `source` (a directory, or a tar file) without restoring it. */
export async function verifyBackup(source: string, options: VerifyOptions = {}): Promise<BackupCheck> {
  try {
    return await withBackupDir(source, async (dir, shown) => {
      const check = await verifyBackupDir(dir, options);
      return { ...check, dir: source, problems: check.problems.map(shown) };
    });
  } catch (err) {
    return { ok: false, dir: source, files: 0, bytes: 0, problems: [(err as Error).message] };
  }
}

/** Check the backup directory `dir`. */
async function verifyBackupDir(dir: string, options: VerifyOptions): Promise<BackupCheck> {
  const problems: string[] = [];
  let index: BackupIndex;
  let indexBytes: Buffer;
  try {
    ({ index, bytes: indexBytes } = await readIndex(dir));
  } catch (err) {
    return { ok: false, dir, files: 0, bytes: 0, problems: [(err as Error).message] };
  }
  // The signature first: an index that is not the one the box signed is not read further as the box's.
  // Checked over the bytes parsed above: a second read could find the box's own index put back after the first.
  const { signer, problem } = await indexSigner(dir, indexBytes);
  // Said of the backup whatever else is found.
  const said = { ...(signer ? { signedBy: signer } : {}), ...(typeof index.createdAt === 'string' ? { createdAt: index.createdAt } : {}) };
  const refusal = problem ?? signerRefusal(dir, signer, options.signedBy) ?? ageRefusal(dir, index, options.notBefore);
  if (refusal) return { ok: false, dir, index, files: index.files.length, bytes: 0, problems: [refusal], ...said };
  // Every entry is checked before any file is read: an edited index names no place a backup never writes.
  const malformed = entryProblems(index.files, path.join(dir, INDEX_FILE));
  if (malformed.length) return { ok: false, dir, index, files: index.files.length, bytes: 0, problems: malformed, ...said };
  let bytes = 0;
  const listed = new Set<string>();
  for (const entry of index.files) {
    listed.add(entry.path);
    const file = path.join(dir, ...entry.path.split('/'));
    const found = await digestFile(file).catch((err: unknown): NotAFileError | undefined => {
      if (err instanceof NotAFileError) return err;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    });
    if (!found) problems.push(`${file} is missing`);
    else if (found instanceof NotAFileError) problems.push(found.message);
    else if (found.bytes !== entry.bytes) problems.push(`${file} has ${found.bytes} bytes, the index says ${entry.bytes}: it was cut short or changed`);
    else if (found.sha256 !== entry.sha256) problems.push(`${file} does not match its SHA-256 in the index: it is corrupted`);
    else bytes += found.bytes;
  }
  for (const extra of (await listFiles(dir)).filter((p) => !listed.has(p))) problems.push(`${path.join(dir, extra)} is not in the index`);
  if (index.eventLog && problems.length === 0) problems.push(...(await checkEventLog(path.join(dir, 'state', EVENT_LOG_DIR), index)));
  const snapshots = path.join(dir, 'state', 'snapshots');
  if (problems.length === 0) problems.push(...snapshotStoreProblems(snapshots));
  // The files' hashes in the index vouch for the bytes as copied; these, for the bytes as the snapshots were taken.
  if (problems.length === 0) problems.push(...(await damagedChunks(snapshots)));
  return { ok: problems.length === 0, dir, index, files: index.files.length, bytes, problems, ...said };
}

/** Why a backup signed by `signer` (or unsigned) is not the one `expected` signed; undefined when nothing was expected or it is. */
function signerRefusal(dir: string, signer: string | undefined, expected: string | undefined): string | undefined {
  if (expected === undefined || signer === expected) return undefined;
  if (signer === undefined)
    return `${path.join(dir, SIGNATURE_FILE)} is missing: the backup is unsigned, so nothing shows it is the one ${expected} made (a box signs its backups when its identity key is readable)`;
  return `${path.join(dir, SIGNATURE_FILE)} is signed by ${signer}, not ${expected}: it is another box's backup, or was rewritten and signed again`;
}

/**
 * Why a backup made before `notBefore` is refused; undefined when no time was asked or it is not
 * older. A signature tells the box's backups from others, not its latest from an earlier one: an
 * older backup the box really signed, put in the place of the latest, passes --signed-by (a
 * rollback). Its signed creation time does not pass this.
 */
function ageRefusal(dir: string, index: BackupIndex, notBefore: string | undefined): string | undefined {
  if (notBefore === undefined) return undefined;
  const file = path.join(dir, INDEX_FILE);
  const made = typeof index.createdAt === 'string' ? Date.parse(index.createdAt) : Number.NaN;
  if (Number.isNaN(made)) return `${file} says no time it was made (createdAt), so it cannot be held to --not-before: the backup is damaged`;
  if (made >= Date.parse(notBefore)) return undefined;
  return `${file} was made at ${index.createdAt}, before ${notBefore}: an older backup than asked for (one put in the place of a later backup, or no backup was made since)`;
}

/** The event log of a backup: its chain from the first line, its size, and the checkpoint's root over it. */
async function checkEventLog(logDir: string, index: BackupIndex): Promise<string[]> {
  const expected = index.eventLog!;
  const chain = await verifyEventLog(logDir);
  if (!chain.ok) return [`the event log in ${logDir} breaks its hash chain at ${chain.firstBad?.file}:${chain.firstBad?.line} (${chain.firstBad?.reason})`];
  if (chain.events !== expected.events) return [`the event log in ${logDir} holds ${chain.events} events, the index says ${expected.events}`];
  if (!expected.checkpoint) return [];
  const tlog = path.join(logDir, 'tlog');
  const audit = await auditAgainstCheckpoint(
    logDir,
    await readFile(path.join(tlog, TLOG_FILES.checkpoint), 'utf8'),
    (await readFile(path.join(tlog, TLOG_FILES.verifierKey), 'utf8')).trim(),
  ).catch((err: Error) => ({ ok: false, message: err.message }));
  return audit.ok ? [] : [`the event log in ${logDir} does not match its signed checkpoint: ${audit.message}`];
}
