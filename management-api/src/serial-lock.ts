// Promise-chain mutexes: one runs critical sections one after another, in call order; the keyed one
// keeps one such lock per key, so sections of other keys are not held up.

/** Serialises async sections. A failing section does not block the ones queued after it. */
export class SerialLock {
  #tail: Promise<void> = Promise.resolve();

  /** Run `section` once every earlier section has settled. */
  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(section);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * One SerialLock per key (a failing section does not block the next): for a check and the action it
 * admits, which requests sent at once must not interleave. A key's lock is dropped once it is idle.
 */
export class OneAtATime {
  readonly #locks = new Map<string, { lock: SerialLock; pending: number }>();

  /** Keys with a section running or waiting. */
  get busyKeys(): number {
    return this.#locks.size;
  }

  async run<T>(key: string, section: () => Promise<T>): Promise<T> {
    let entry = this.#locks.get(key);
    if (!entry) {
      entry = { lock: new SerialLock(), pending: 0 };
      this.#locks.set(key, entry);
    }
    entry.pending++;
    try {
      return await entry.lock.run(section);
    } finally {
      // The last one out leaves no entry behind.
      if (--entry.pending === 0) this.#locks.delete(key);
    }
  }
}
