// A temporary directory of a backup command (an unpacked archive, a restore's staging, a backup's partial copy) removed when
// the command is ended by SIGINT, SIGTERM or SIGHUP, as it is on every failure it catches.
import { rmSync } from 'node:fs';
import { constants } from 'node:os';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The directories to remove, while there are any: one handler serves them all. */
const pending = new Set<string>();

function onSignal(signal: NodeJS.Signals): void {
  for (const dir of pending) rmSync(dir, { recursive: true, force: true });
  // The status a shell gives a process the signal ended (128 + its number). Not the signal raised
  // again: that waits on every other listener of it, and a process started with it ignored goes on.
  process.exit(128 + constants.signals[signal]);
}

/** Remove `dir` should the process be signalled before the returned function is called (once `dir` is gone or kept). */
export function removedOnSignal(dir: string): () => void {
  if (pending.size === 0) for (const signal of SIGNALS) process.on(signal, onSignal);
  pending.add(dir);
  return () => {
    pending.delete(dir);
    if (pending.size === 0) for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}
