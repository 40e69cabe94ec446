// A programme that cannot start (its port is taken) says why in one line, in a file of its own
// under the run directory, and exits with START_FAILED_EXIT: the generated supervisord.conf lists
// that status as expected, so supervisord leaves the programme EXITED instead of restarting it
// forever, and the seal listener puts the line in the failure marker /ready and `agentbox up` read.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { boxFacts } from '../box-facts.js';

/** The exit status of a programme that cannot start and must not be restarted (78, EX_CONFIG; lib/programs.nix reads the same fact). */
export const START_FAILED_EXIT = boxFacts.programs.startFailedExit;

/** The directory of the start failures of this boot (stage A empties it at every boot). */
export function startFailuresDir(runDir: string): string {
  return path.join(runDir, 'start-failed');
}

/** The file holding `program`'s start failure. */
export function startFailureFile(runDir: string, program: string): string {
  return path.join(startFailuresDir(runDir), program);
}

/** Record why `program` cannot start (one line). */
export function recordStartFailure(runDir: string, program: string, line: string): void {
  const file = startFailureFile(runDir, program);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${line.replace(/\n/g, ' ')}\n`, { mode: 0o644 });
}

/** The recorded start failure of `program`, if any. */
export function readStartFailure(runDir: string, program: string): string | undefined {
  try {
    return readFileSync(startFailureFile(runDir, program), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** A start that listens clears the programme's earlier failure. */
export function clearStartFailure(runDir: string, program: string): void {
  rmSync(startFailureFile(runDir, program), { force: true });
}
