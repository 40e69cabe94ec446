// The stat-ahead helper thread: keeps the next capture's files, and when told to go, lstats them from the last one down until it meets the walk (stat-ahead.ts).
import { lstatSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { fsPath } from '../fs-names.js';
import { type AheadJob, type AheadMessage, CLAIMED, DIFFERS, META_FIELDS, PENDING, SAME, STAMP_FIELDS } from './stat-ahead.js';

let kept: { id: number; job: AheadJob; paths: string[] } | undefined;

parentPort!.on('message', (message: AheadMessage) => {
  if ('job' in message) {
    // Split while the capture thread is idle: a capture starts with the paths ready.
    kept = { id: message.id, job: message.job, paths: message.job.paths.split('\0') };
    return;
  }
  if (kept?.id !== message.go) return;
  const { job, paths } = kept;
  kept = undefined;
  lookFromTheEnd(job, paths);
});

/** Each file from the last slot down: its answer put in its slot unless the walk claimed it first, which ends the run, as does the capture's end. */
function lookFromTheEnd({ stamps, meta, state }: AheadJob, paths: string[]): void {
  const ended = paths.length;
  for (let slot = paths.length - 1; slot >= 0; slot--) {
    if (Atomics.load(state, ended) !== 0 || Atomics.load(state, slot) !== PENDING) return;
    let answer = DIFFERS;
    try {
      const st = lstatSync(fsPath(paths[slot]!), { throwIfNoEntry: false });
      const at = slot * STAMP_FIELDS;
      if (
        st?.isFile() &&
        st.dev === stamps[at] &&
        st.ino === stamps[at + 1] &&
        st.size === stamps[at + 2] &&
        st.mtimeMs === stamps[at + 3] &&
        st.ctimeMs === stamps[at + 4]
      ) {
        // Written before the answer is published: the walk reads them only after seeing SAME.
        meta[slot * META_FIELDS] = st.mode;
        meta[slot * META_FIELDS + 1] = st.uid;
        meta[slot * META_FIELDS + 2] = st.gid;
        answer = SAME;
      }
    } catch {
      // Unreadable here (a name too long, a loop of links in the path): the walk looks its own way.
    }
    if (Atomics.compareExchange(state, slot, PENDING, answer) === CLAIMED) return;
  }
}
