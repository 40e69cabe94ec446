// Ends a whole session of processes: what a test started detached (its own session) and all it
// started in turn. supervisord puts each programme in a process group of its own, so a signal to
// supervisord's group alone leaves its programmes running, reparented to init, after the test.
import { listPids, readStat } from '../../management-api/src/sandbox/limits/proc-stat.js';

/** SIGKILL every process whose session is `sid` (a pid spawned with `detached: true`). */
export function killSession(sid: number): void {
  for (const pid of listPids()) {
    if (readStat(pid)?.session !== sid) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended between the read and the signal.
    }
  }
}

/** The pids of session `sid` still running (zombies left out: they hold nothing). */
export function sessionPids(sid: number): number[] {
  return listPids().filter((pid) => {
    const stat = readStat(pid);
    return stat?.session === sid && stat.state !== 'Z';
  });
}
