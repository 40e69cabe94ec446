// Synchronous file system calls made on the API's thread in short slices, with a turn of the event loop between them.
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * How long a slice of synchronous calls may hold the event loop. Why synchronous at all: a small
 * call (an lstat, an unlink of an empty file) sent to the thread pool costs a round trip several
 * times the call itself, so a walk of a tree of 100,000 names took 4–20 times as long as `du` or
 * `rm -rf` of it. Made on the API's thread, they go at the kernel's pace, and requests are still
 * answered between slices.
 */
export const SLICE_MS = 2;

/** A run of synchronous calls: `pause()` after each gives the event loop a turn once the slice has had its time. */
export class ThreadSlices {
  #start = performance.now();

  async pause(): Promise<void> {
    if (performance.now() - this.#start < SLICE_MS) return;
    await nextTurn();
    this.#start = performance.now();
  }
}
