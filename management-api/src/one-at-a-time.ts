// A keyed promise-chain mutex: the sections of one key run one after another, in call order; other keys are not held up.

/**
 * Runs the sections of one key one after another (a failing section does not block the next):
 * for a check and the action it admits, which requests sent at once must not interleave.
 */
export class OneAtATime {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Keys with a section running or waiting. */
  get busyKeys(): number {
    return this.#tails.size;
  }

  run<T>(key: string, section: () => Promise<T>): Promise<T> {
    const result = (this.#tails.get(key) ?? Promise.resolve()).then(section);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    // The last one out leaves no entry behind.
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
