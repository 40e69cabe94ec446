// Under supervisord, an API that cannot start waits before it exits, longer after each failure in a row.
//
// The management-api programme is RUNNING the moment it is spawned (startsecs=0, so the seal waits
// for nothing but stage B) and restarts whenever it exits (autorestart). supervisord's own
// back-off only applies to programmes still in STARTING, so without this pause an API whose
// critical backend is down would be restarted several times a second, each time logging the same
// failure. The count of failures in a row lives in the run directory (tmpfs: a new container
// starts from zero) and is cleared by the first start that listens.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The pause after the first failure in a row; each further failure doubles it up to the maximum. */
export const FIRST_PAUSE_MS = 1_000;
export const MAX_PAUSE_MS = 30_000;
/** A failure this long after the previous one starts a new series. */
export const SERIES_RESET_MS = 5 * 60_000;

/** The file holding `{failures, at}` of the current series. */
export function startFailuresFile(runDir: string): string {
  return path.join(runDir, 'api-start-failures.json');
}

/** The pause after the n-th failure in a row (n ≥ 1). */
export function pauseAfter(failures: number): number {
  return Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * Count this failure and say how long to pause before exiting. A missing, unreadable or stale
 * record counts as the first failure: pacing must never be the reason the API cannot restart.
 */
export async function recordFailedStart(file: string, now = Date.now()): Promise<{ failures: number; pauseMs: number }> {
  let failures = 1;
  try {
    const previous = JSON.parse(await readFile(file, 'utf8')) as { failures?: unknown; at?: unknown };
    if (typeof previous.failures === 'number' && typeof previous.at === 'number' && now - previous.at < SERIES_RESET_MS && now >= previous.at) {
      failures = previous.failures + 1;
    }
  } catch {
    // first failure of a series
  }
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify({ failures, at: now })}\n`);
  } catch {
    // an unwritable run directory only means every failure pauses the first amount
  }
  return { failures, pauseMs: pauseAfter(failures) };
}

/** A start that listens ends the series. */
export async function clearFailedStarts(file: string): Promise<void> {
  await rm(file, { force: true });
}

/** Wait `ms`, or less when SIGTERM or SIGINT arrives (supervisord stopping the programme must not wait). */
export function pauseUnlessStopped(ms: number): Promise<'elapsed' | NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (how: 'elapsed' | NodeJS.Signals): void => {
      clearTimeout(timer);
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(how);
    };
    const onSignal = (signal: NodeJS.Signals): void => done(signal);
    const timer = setTimeout(() => done('elapsed'), ms);
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
