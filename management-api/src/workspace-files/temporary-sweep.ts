// At start: the temporaries a killed API left in agents' workspaces, found by their records (temporary-records.ts) and removed as the files API's own deletes remove, never outside the workspace.
import { rename, unlink, type FileHandle } from 'node:fs/promises';
import type { Logger } from 'pino';
import { openWorkspace, type Workspace } from './agent-workspace.js';
import { at, lstatAt, removeMadeDirs, walkDirs } from './dir-fd.js';
import { removeTree } from './file-delete.js';
import { ioReason } from '../durable-fs.js';
import { ApiError } from '../errors.js';
import { hasTemporaryForm, identityOf, replacedAside, type TemporaryRecord, type TemporaryRecords } from './temporary-records.js';

/** What a sweep did with its records. */
export interface SweepReport {
  /** Temporaries removed. */
  removed: number;
  /** Records whose temporary was no longer there (never made, or the agent removed or moved it or its workspace). */
  gone: number;
  /** Temporaries left where they are, each with a warning: something else stood in their place, or they could not be removed. */
  left: number;
}

/** What became of one record's temporary; `putBack`: a restore's, whose working directory was put back where the restore had moved it from. */
type Outcome = { done: 'removed' | 'gone'; putBack?: string } | { done: 'left'; why: string };

/**
 * Remove the temporary of each record in `records` (those of `files`, listed before any request of
 * this start could add one), then the record. The workspace is the record's directory under
 * `workspaceDir` only while it is the same directory (its inode and birth); every step below it is opened
 * from its parent's descriptor without following a link, and only a name that still has its
 * temporary's form and type is removed: a file for a PUT, a directory (walked the same way, as
 * deep as a delete walks) for an upload, a fork or a restore (whose swap, when it was cut in the
 * middle, is first undone: undoSwap). Whatever an agent put in its place — a link, a renamed
 * parent, a tree too deep — is left with a warning. Never throws: a record that cannot be used is
 * dropped with a warning, and the box starts whatever the sweep met.
 */
export async function sweepTemporaries(records: TemporaryRecords, files: readonly string[], workspaceDir: string, logger: Logger): Promise<SweepReport> {
  const report: SweepReport = { removed: 0, gone: 0, left: 0 };
  for (const file of files) {
    try {
      const record = await records.read(file);
      if ('unreadable' in record) {
        // Cut short by a kill while it was written (its temporary comes after), or not one of ours.
        logger.warn(
          { event: 'WorkspaceTemporaryRecordUnreadable', record: file, reason: record.unreadable },
          `workspace temporary record ${file} is dropped unread`,
        );
      } else {
        const outcome = await sweepOne(record, workspaceDir);
        report[outcome.done]++;
        const where = { event: 'WorkspaceTemporarySwept', kind: record.kind, workspace: record.workspace.dir, path: shownOf(record), outcome: outcome.done };
        if (outcome.done === 'left') logger.warn({ ...where, reason: outcome.why }, `the workspace temporary ${shownOf(record)} is left: ${outcome.why}`);
        else if (outcome.putBack !== undefined)
          logger.warn(
            { ...where, putBack: outcome.putBack },
            `a restore was killed while it swapped in ${outcome.putBack}: the working directory it had moved aside is put back, unrestored`,
          );
        else logger.info(where, `the workspace temporary ${shownOf(record)} a killed write left is ${outcome.done}`);
      }
    } catch (err) {
      report.left++;
      logger.warn({ event: 'WorkspaceTemporarySweepFailed', record: file, reason: reasonOf(err) }, `workspace temporary record ${file} could not be swept`);
    }
    await records.drop(file);
  }
  return report;
}

/** A walk that found nothing at a name on the way. */
const isGone = (err: unknown): boolean => (err instanceof ApiError && err.code === 'ABX_ERR_NOT_FOUND') || (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Why, for the log: the files API's own words, or the errno (never a /proc/self/fd path). */
const reasonOf = (err: unknown): string => (err instanceof ApiError ? err.message : ioReason(err));

/** The temporary's path in its workspace, for the log. */
const shownOf = (record: TemporaryRecord): string => [...record.parent, record.name].join('/');

async function sweepOne(record: TemporaryRecord, workspaceDir: string): Promise<Outcome> {
  let ws: Workspace;
  try {
    // Its real path confined to the box's workspace directory, as every request's is.
    ws = await openWorkspace(workspaceDir, record.workspace.dir);
  } catch (err) {
    return isGone(err) ? { done: 'gone' } : { done: 'left', why: reasonOf(err) };
  }
  try {
    // Another directory at that path now (the agent's made again): the temporary went with the old one.
    const { dev, ino, born } = identityOf(await ws.root.stat({ bigint: true }));
    if (dev !== record.workspace.dev || ino !== record.workspace.ino || born !== record.workspace.born) return { done: 'gone' };
    return await removeIn(ws, record);
  } finally {
    await ws.close();
  }
}

async function removeIn(ws: Workspace, record: TemporaryRecord): Promise<Outcome> {
  const shown = shownOf(record);
  let dir: FileHandle;
  try {
    dir = await walkDirs(ws.root, record.parent);
  } catch (err) {
    // Else a link or a file where a directory on the way was: never followed.
    return isGone(err) ? { done: 'gone' } : { done: 'left', why: reasonOf(err) };
  }
  try {
    const { name, kind } = record;
    if (!hasTemporaryForm(kind, name)) return { done: 'left', why: 'the recorded name is not a temporary' };
    const putBack = kind === 'restore' ? await undoSwap(dir, record) : undefined;
    if (putBack && putBack.done === 'left') return putBack;
    const st = await lstatAt(dir, name);
    if (!st) {
      await removeMadeDirs(ws.root, record.parent, record.madeFrom);
      return putBack ?? { done: 'gone' };
    }
    if (kind === 'file' && st.isFile()) await unlink(at(dir, name));
    else if (kind !== 'file' && st.isDirectory()) await removeTree(dir, name, shown, { unseal: true });
    else return { done: 'left', why: notOurs(st) };
    // The parents the write made for itself, each only while empty (rmdir): what the agent put there since stays, with them.
    await removeMadeDirs(ws.root, record.parent, record.madeFrom);
    return { ...putBack, done: 'removed' };
  } catch (err) {
    return { done: 'left', why: reasonOf(err) };
  } finally {
    if (dir !== ws.root) await dir.close();
  }
}

/** Why an entry of a temporary's name is not the box's to remove. */
const notOurs = (st: { isSymbolicLink(): boolean }): string =>
  `${st.isSymbolicLink() ? 'a symbolic link' : 'another type of entry'} is in its place (links are never followed)`;

/**
 * A restore's swap (workspace-snapshots.ts restoreAgent): its working directory `replaces` is
 * renamed aside, then the build renamed in, then the one aside removed. Killed after the first
 * rename and before the second, the working directory is missing and whole aside: it is put back,
 * as a restore that fails before its swap leaves it (the build, unfinished or not, then goes as any
 * temporary). Killed after the second, the one aside is the replaced tree: removed. Undefined when
 * nothing is aside.
 */
async function undoSwap(dir: FileHandle, record: TemporaryRecord): Promise<Outcome | undefined> {
  const aside = replacedAside(record.name);
  const leaf = record.replaces!;
  const st = await lstatAt(dir, aside);
  if (!st) return undefined;
  if (!st.isDirectory()) return { done: 'left', why: `${aside}: ${notOurs(st)}` };
  if (await lstatAt(dir, leaf)) {
    await removeTree(dir, aside, [...record.parent, aside].join('/'), { unseal: true });
    return { done: 'removed' };
  }
  await rename(at(dir, aside), at(dir, leaf));
  return { done: 'removed', putBack: [...record.parent, leaf].join('/') };
}
