// Stage B tells the seal listener it is done through supervisord's process communication
// channel, the moment its work is finished, instead of leaving the listener to learn it from the
// programme's exit.
//
// Why: supervisord notices an exit only when it reaps the child, and it sends the resulting
// PROCESS_STATE_EXITED event to listeners on the next turn of its loop, which waits for the next
// output of any programme (up to a second). That made the seal arrive 150-200 ms after stage B
// finished in about half of all boots. A communication event is raised while supervisord reads
// the programme's output and is dispatched in the same turn.
import { writeSync } from 'node:fs';
import { startedBySupervisord } from '../programme/supervised.js';

/** The data of the communication event that says stage B completed. */
export const STAGE_B_COMPLETED = 'agentbox:stage-b-completed';

/** supervisord's markers around a message on a programme's stdout (its "capture mode"). */
const BEGIN = '<!--XSUPERVISOR:BEGIN-->';
const END = '<!--XSUPERVISOR:END-->';

/**
 * Announce that stage B completed, when supervisord started it (programme/supervised.ts);
 * elsewhere stdout is a person's terminal and nothing is written. Synchronous, so the message is out before the process exits.
 * False too when supervisord is gone (EPIPE): nobody is left to tell, and stage B's work stands.
 */
export function reportStageBCompleted(env: Readonly<Record<string, string | undefined>>, fd = 1): boolean {
  if (!startedBySupervisord(env)) return false;
  try {
    writeSync(fd, `${BEGIN}${STAGE_B_COMPLETED}${END}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return false;
    throw err;
  }
  return true;
}
