// At start: the temporaries a killed API left in agents' workspaces, found by their records (temporary-records.ts) and removed as the files API's own deletes remove, never outside the workspace.
import { unlink, type FileHandle } from 'node:fs/promises';
import type { Logger } from 'pino';
import { openWorkspace, type Workspace } from './agent-workspace.js';
import { at, lstatAt, walkDirs } from './dir-fd.js';
import { removeTree } from './file-delete.js';
import { ioReason } from '../durable-fs.js';
import { ApiError } from '../errors.js';
import { hasTemporaryForm, identityOf, type TemporaryRecord, type TemporaryRecords } from './temporary-records.js';

/** What a sweep did with its records. */
export interface SweepReport {
  /** Temporaries removed. */
  removed: number;
  /** Records whose temporary was no longer there (never made, or the agent removed or moved it or its workspace). */
  gone: number;
  /** Temporaries left where they are, each with a warning: something else stood in their place, or they could not be removed. */
  left: number;
}

/** What became of one record's temporary. */
type Outcome = { done: 'removed' | 'gone' } | { done: 'left'; why: string };

/**
 * Remove the temporary of each record in `records` (those of `files`, listed before any request of
 * this start could add one), then the record. The workspace is the record's directory under
 * `workspaceDir` only while it is the same directory (its inode and birth); every step below it is opened
 * from its parent's descriptor without following a link, and only a name that still has its
 * temporary's form and type is removed: a file for a PUT, a directory (walked the same way, as
 * deep as a delete walks) for an upload. Whatever an agent put in its place — a link, a renamed
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
    const st = await lstatAt(dir, name);
    if (!st) return { done: 'gone' };
    if (kind === 'file' && st.isFile()) await unlink(at(dir, name));
    else if (kind === 'upload' && st.isDirectory()) await removeTree(dir, name, shown, { unseal: true });
    else return { done: 'left', why: `${st.isSymbolicLink() ? 'a symbolic link' : 'another type of entry'} is in its place (links are never followed)` };
    return { done: 'removed' };
  } catch (err) {
    return { done: 'left', why: reasonOf(err) };
  } finally {
    if (dir !== ws.root) await dir.close();
  }
}
