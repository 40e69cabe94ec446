// Exact-length reads from a stream of chunks: what a tar parser needs (whole blocks, then a file's bytes piece by piece).
export class ByteReader {
  readonly #it: AsyncIterator<Buffer>;
  #buf: Buffer = Buffer.alloc(0);
  #done = false;

  constructor(source: AsyncIterable<Buffer | string>) {
    const it = source[Symbol.asyncIterator]();
    this.#it = {
      next: async () => {
        const r = await it.next();
        return r.done ? r : { done: false, value: typeof r.value === 'string' ? Buffer.from(r.value) : r.value };
      },
    };
  }

  /** Exactly `n` bytes, or fewer only at the end of the stream. */
  async read(n: number): Promise<Buffer> {
    while (this.#buf.length < n && !this.#done) {
      const r = await this.#it.next();
      if (r.done) this.#done = true;
      else this.#buf = this.#buf.length ? Buffer.concat([this.#buf, r.value]) : r.value;
    }
    const out = this.#buf.subarray(0, n);
    this.#buf = this.#buf.subarray(out.length);
    return out;
  }

  /** Up to `max` bytes (at least one unless the stream ended): the buffered ones first, else the next chunk. */
  async some(max: number): Promise<Buffer> {
    if (this.#buf.length === 0 && !this.#done) {
      const r = await this.#it.next();
      if (r.done) this.#done = true;
      else this.#buf = r.value;
    }
    const out = this.#buf.subarray(0, max);
    this.#buf = this.#buf.subarray(out.length);
    return out;
  }

  /** Read and drop the rest of the stream (so the client sees its answer). */
  async drain(): Promise<void> {
    this.#buf = Buffer.alloc(0);
    while (!this.#done) if ((await this.#it.next()).done) this.#done = true;
  }
}
