// Polls a /ready URL until it answers 200, for commands that start a box and wait for it.
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolve true once `url` answers 200; false when `cancelled()` turns true first. */
export async function waitUntilReady(url: string, cancelled: () => boolean, intervalMs = 50): Promise<boolean> {
  while (!cancelled()) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status === 200) return true;
    } catch {
      // Not listening yet.
    }
    await sleep(intervalMs);
  }
  return false;
}
