// A promise-chain mutex: runs critical sections one after another, in call order.

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
