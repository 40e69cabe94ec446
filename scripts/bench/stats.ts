// Small statistics helpers shared by the benchmark scripts.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** The q-quantile (0..1) of `samples` (nearest-rank). */
export function quantile(samples: readonly number[], q: number): number {
  if (!samples.length) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx]!;
}

/** Median of `samples`. */
export function median(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

/** Format milliseconds with sensible precision. */
export function ms(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

/** Render rows as an aligned plain-text table. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * Run `work` under an event-loop delay monitor of this process (1 ms resolution): how long it
 * took, and how long this thread was held at a time, at most and at the 99th percentile (ms).
 * For a bench whose box runs in its own process: a long synchronous call shows here.
 */
export async function heldDuring<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; heldMaxMs: number; heldP99Ms: number }> {
  const held = monitorEventLoopDelay({ resolution: 1 });
  held.enable();
  const start = performance.now();
  try {
    const value = await work();
    return { value, ms: performance.now() - start, heldMaxMs: held.max / 1e6, heldP99Ms: held.percentile(99) / 1e6 };
  } finally {
    held.disable();
  }
}
