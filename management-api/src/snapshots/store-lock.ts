// The snapshot store's lock: captures, restores and forks share it; a delete's sweep holds it alone, so it never removes an object one of them is about to use.

/** Many holders in `shared` mode, or one in `exclusive`; waiters are served in arrival order. */
export class StoreLock {
  #shared = 0;
  #exclusive = false;
  readonly #queue: Array<{ exclusive: boolean; go: () => void }> = [];

  async shared<T>(fn: () => Promise<T>): Promise<T> {
    await this.#acquire(false);
    try {
      return await fn();
    } finally {
      this.#shared--;
      this.#next();
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await this.#acquire(true);
    try {
      return await fn();
    } finally {
      this.#exclusive = false;
      this.#next();
    }
  }

  #acquire(exclusive: boolean): Promise<void> {
    // Nobody waiting ahead: a shared holder joins at once while no exclusive one holds it.
    if (this.#queue.length === 0 && !this.#exclusive && (!exclusive || this.#shared === 0)) {
      if (exclusive) this.#exclusive = true;
      else this.#shared++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#queue.push({ exclusive, go: resolve }));
  }

  #next(): void {
    while (this.#queue.length > 0 && !this.#exclusive) {
      const head = this.#queue[0]!;
      if (head.exclusive) {
        if (this.#shared > 0) return;
        this.#queue.shift();
        this.#exclusive = true;
        head.go();
        return;
      }
      this.#queue.shift();
      this.#shared++;
      head.go();
    }
  }
}
