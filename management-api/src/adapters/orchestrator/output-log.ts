// An agent's captured output: a bounded ring of numbered chunks, readable from any point and followable live.
import type { OutputChunk } from './orchestrator-adapter.js';

/** Bytes of output kept per agent by default; older chunks are dropped first (their numbers leave a visible gap). */
export const DEFAULT_OUTPUT_BYTES = 1024 * 1024;
/** Longest text of one chunk; longer writes are split. */
const MAX_CHUNK_CHARS = 16 * 1024;

/** The output of one agent process. */
export class OutputLog {
  readonly #chunks: OutputChunk[] = [];
  #bytes = 0;
  #seq = 0;
  #ended = false;
  #wake: (() => void) | undefined;
  #woken: Promise<void> | undefined;

  constructor(
    private readonly maxBytes = DEFAULT_OUTPUT_BYTES,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** True once both streams have closed: nothing more will be appended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Number of the last chunk appended (0 before any). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Record `text` written to `stream`. */
  append(stream: OutputChunk['stream'], text: string): void {
    if (this.#ended || text === '') return;
    for (let i = 0; i < text.length; i += MAX_CHUNK_CHARS) {
      const chunk: OutputChunk = { seq: ++this.#seq, stream, time: this.clock().toISOString(), text: text.slice(i, i + MAX_CHUNK_CHARS) };
      this.#chunks.push(chunk);
      this.#bytes += Buffer.byteLength(chunk.text, 'utf8');
    }
    while (this.#bytes > this.maxBytes && this.#chunks.length > 1) {
      this.#bytes -= Buffer.byteLength(this.#chunks.shift()!.text, 'utf8');
    }
    this.#notify();
  }

  /** No more output will come. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The kept chunks numbered above `after`. */
  since(after = 0): OutputChunk[] {
    // Chunks are numbered consecutively, so the first wanted one is found by arithmetic.
    const first = this.#chunks[0];
    if (!first) return [];
    return this.#chunks.slice(Math.max(0, after - first.seq + 1));
  }

  /** Resolves at the next append or end, or when `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    this.#woken ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return new Promise<void>((resolve) => {
      const onAbort = (): void => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      void this.#woken!.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Chunks after `after`; with `follow`, keep yielding new ones until the output ends or `signal` aborts. */
  async *read(after: number, follow: boolean, signal: AbortSignal): AsyncGenerator<OutputChunk> {
    let last = after;
    for (;;) {
      // Read `ended` before draining: output appended just before the end is still drained.
      const wasEnded = this.#ended;
      for (const chunk of this.since(last)) {
        if (signal.aborted) return;
        yield chunk;
        last = chunk.seq;
      }
      if (!follow || wasEnded || signal.aborted) return;
      await this.changed(signal);
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#woken = undefined;
    wake?.();
  }
}
