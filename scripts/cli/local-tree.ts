// A local directory opened as the workspace-files code expects one, so `agentbox cp` packs and extracts with the box's own checks.
import { open } from 'node:fs/promises';
import type { Workspace } from '../../management-api/src/workspace-files/agent-workspace.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import type { UploadLimits } from '../../management-api/src/workspace-files/tar-limits.js';

/** The directory `dir`, held open; files made there stay the user's (no owner to give them to), their temporaries not recorded (no box to sweep them). */
export async function openLocalTree(dir: string): Promise<Workspace> {
  const root = await open(dir, DIR_FLAGS);
  const self = process.getuid?.() ?? -1;
  return { path: dir, root, owner: undefined, ownUid: self, temporaries: undefined, close: () => root.close() };
}

/** A download is the user's own choice of size: only the entry checks bound it, not the box's upload limits. */
export const DOWNLOAD_LIMITS: UploadLimits = {
  fileBytes: Number.MAX_SAFE_INTEGER,
  fileName: 'no limit',
  entries: Number.MAX_SAFE_INTEGER,
  totalBytes: Number.MAX_SAFE_INTEGER,
  totalName: 'no limit',
};
