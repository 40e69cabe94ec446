// Picks the boot and runtime events (pino JSON lines with an `event` field) out of a box's output.

/** One event line, parsed. */
export type EventLine = Record<string, unknown> & { event: string };

/** The event lines of `lines`, in order; other output (supervisord's own log, partial lines) is skipped. */
export function eventLines(lines: readonly string[]): EventLine[] {
  return lines.flatMap((l) => {
    if (!l.startsWith('{')) return [];
    try {
      const o = JSON.parse(l) as Record<string, unknown>;
      return typeof o['event'] === 'string' ? [o as EventLine] : [];
    } catch {
      return [];
    }
  });
}
