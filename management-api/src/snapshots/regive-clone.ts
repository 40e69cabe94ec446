// A fork made from a snapshot's clone, given to its new agent's uid (a root box gives each agent ids of its own): every entry chowned through its parent's descriptor, in a worker.
import { closeSync, fchmodSync, fchownSync, lchownSync, openSync, readFileSync } from 'node:fs';
import { atFd, DIR_FLAGS } from '../workspace-files/dir-fd.js';
import { parseEntries } from './entries-file.js';
import { damaged, DirStack, splitPath } from './materialize-dirs.js';
import type { RegiveJob } from './snapshot-protocol.js';

/**
 * Give every entry of the clone at `job.target` to `job.owner`, walking the snapshot's entries
 * (the clone holds exactly them: CaptureResult.cloneFit). The root is 0700 meanwhile, so nothing
 * enters the tree while it changes hands; links are chowned themselves, never followed, and each
 * directory is opened O_NOFOLLOW below its parent's descriptor. chown keeps modes and mtimes (a
 * clone carries no setuid bit for it to clear). Answers how many entries it gave.
 */
export function regiveClone(job: RegiveJob): number {
  const entries = parseEntries(readFileSync(job.entriesFile), job.entriesSha256, job.entriesFile);
  const first = entries[0];
  if (first?.type !== 'dir' || first.path !== '') throw damaged('it does not start with its root directory');
  const root = openSync(job.target, DIR_FLAGS);
  try {
    fchmodSync(root, 0o700);
    fchownSync(root, job.owner.uid, job.owner.gid);
    const stack = new DirStack(root);
    try {
      for (const e of entries.slice(1)) {
        const { parent, name } = splitPath(e.path);
        lchownSync(atFd(stack.enter(parent, true), name), job.owner.uid, job.owner.gid);
      }
    } finally {
      stack.close();
    }
    fchmodSync(root, first.mode & 0o777);
    return entries.length;
  } finally {
    closeSync(root);
  }
}
