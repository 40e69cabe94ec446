// An agent's workspace opened for the files API: its working directory's real path, held open, who files made in it belong to, and where its temporaries are recorded.
import { realpath } from 'node:fs/promises';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../errors.js';
import { DIR_FLAGS, type Owner } from './dir-fd.js';
import { placeOf, type TemporaryRecorder, type TemporaryRecords } from './temporary-records.js';

/** A workspace open for one request; close it when done. */
export interface Workspace {
  /** The working directory's real path. */
  path: string;
  /** The directory, open: every step of the request starts from this descriptor. */
  root: FileHandle;
  /** The agent's ids on a root box (files made here are given to them); undefined when the box runs unprivileged. */
  owner: Owner | undefined;
  /** The uid whose files are the agent's: a file of another owner with several links was linked in, not made here. */
  ownUid: number;
  /** Records the temporaries a write makes here before they are made, with where the workspace is (temporary-records.ts); undefined: not recorded. */
  temporaries: TemporaryRecorder | undefined;
  close(): Promise<void>;
}

/**
 * Open the working directory `cwd` (relative to the box's workspace `workspaceDir`) of an agent.
 * Its real path must stay in the workspace. On a root box the directory belongs to the agent's
 * own uid (the sandbox gives it at spawn); files the API makes there are given to that uid.
 * `temporaries`: where the writes of this request record their temporaries (the files routes';
 * a snapshot makes none through it).
 */
export async function openWorkspace(workspaceDir: string, cwd: string, temporaries?: TemporaryRecords): Promise<Workspace> {
  const base = await realpath(workspaceDir);
  let real: string;
  try {
    real = await realpath(path.join(base, cwd));
  } catch {
    throw new ApiError('ABX_ERR_NOT_FOUND', `the agent's working directory ${JSON.stringify(cwd)} no longer exists`);
  }
  if (real !== base && !real.startsWith(base + path.sep))
    throw new ApiError('ABX_ERR_FILE_PATH', `the agent's working directory ${JSON.stringify(cwd)} leads outside the workspace`);
  const root = await open(real, DIR_FLAGS);
  const st = await root.stat({ bigint: true });
  const self = process.getuid?.() ?? -1;
  const owner = self === 0 && st.uid !== 0n ? { uid: Number(st.uid), gid: Number(st.gid) } : undefined;
  const recorder = temporaries?.in(placeOf(base, real, st));
  return { path: real, root, owner, ownUid: owner?.uid ?? self, temporaries: recorder, close: () => root.close() };
}
