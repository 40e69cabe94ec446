// What the launcher that stays beside an agent (the keeper, or the waiting parent in bubblewrap) reports on its ready pipe after the ready byte: the limits it enforced itself.
import type { LimitReason } from './limits/budgets.js';

/** The reasons a keeper reports, as it writes them. */
const REPORTED: ReadonlySet<string> = new Set<LimitReason>(['limit:memory']);

/**
 * Call `onLimit` for each `<reason> <bytes>` line the launcher writes to `pipe` (after its ready
 * byte, which launcherReady may have consumed). Anything else is ignored: the launcher is ours, but it runs
 * as the agent's uid and a line is a claim, never a command.
 */
export function followKeeperReports(
  pipe: NodeJS.ReadableStream | null,
  onLimit: (reason: LimitReason, bytes: number) => void,
  /** What was read after the ready byte before this was called (launcherReady's rest). */
  already = '',
): void {
  if (!pipe) return;
  let pending = '';
  const take = (data: Buffer | string) => {
    pending += String(data);
    // Bounded: a pipe that never ends a line cannot grow the API's memory.
    if (pending.length > 4096) pending = pending.slice(-256);
    let end: number;
    while ((end = pending.indexOf('\n')) >= 0) {
      const [reason, bytes] = pending.slice(0, end).replace(/^r+/, '').split(' ');
      pending = pending.slice(end + 1);
      if (reason && REPORTED.has(reason)) onLimit(reason as LimitReason, Number(bytes) || 0);
    }
  };
  if (already) take(already);
  pipe.on('data', take);
  pipe.on('error', () => undefined);
}
