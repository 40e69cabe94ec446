// The API's side of the terminal emulators: one shared worker thread for every tty agent, started when the first needs it and again after a crash.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { EmulatorReply, EmulatorRequest } from './emulator-protocol.js';
import type { ScreenTail } from './prompt-watch.js';

/** What an emulator tells its terminal. */
export interface EmulatorEvents {
  /** `bytes` of the output written to it have been parsed. */
  parsed(bytes: number): void;
  /** The worker ended under it: its screen is gone, and no request will be answered (those waiting were answered `undefined`). */
  lost(): void;
}

/**
 * Output is posted to the worker in messages of this size at least, or after FLUSH_MS: a master
 * is read 4 KiB at a time, and a message each way per read (the output, the worker's count of
 * what it parsed) cost more CPU than the copying. Nothing waits on the screen meanwhile: a request
 * (a viewer's screen, the prompt watch's tail) posts what is queued before itself.
 */
const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 5;

/** A request waiting for the worker's answer. */
interface Waiting {
  emulator: Emulator;
  answer(value: unknown): void;
}

/**
 * The worker (emulator-worker.ts) and the emulators it holds. The worker keeps the process alive
 * only while it has work (output not parsed yet, a request waiting), as the emulator's own timers
 * did on the main thread: an idle one never does, and close() ends it.
 * When it crashes the API goes on: the crash is logged, every emulator it held is lost (its
 * terminal says so to viewers), and the next tty agent starts a new worker.
 */
export class EmulatorHost {
  #worker: Worker | undefined;
  /** Emulators of the running worker, by the number it knows them by. */
  readonly #emulators = new Map<number, Emulator>();
  readonly #waiting = new Map<number, Waiting>();
  /** Emulators with output queued, posted together after FLUSH_MS unless they fill a message first. */
  readonly #queued = new Set<Emulator>();
  #flushTimer: NodeJS.Timeout | undefined;
  #nextId = 0;
  #seq = 0;
  /** Bytes posted to the worker and not yet reported parsed, all emulators together. */
  #unparsed = 0;
  #held = false;

  constructor(private readonly logger?: Logger) {}

  /** The running worker, if any (tests end it to show a crash is survived). */
  get worker(): Worker | undefined {
    return this.#worker;
  }

  /** A new emulator of `cols` × `rows` keeping `scrollback` lines. */
  open(size: { cols: number; rows: number }, scrollback: number, events: EmulatorEvents): Emulator {
    const worker = this.#worker ?? this.#start();
    const emulator = new Emulator(this, ++this.#nextId, events);
    this.#emulators.set(emulator.id, emulator);
    worker.postMessage({ op: 'open', id: emulator.id, cols: size.cols, rows: size.rows, scrollback } satisfies EmulatorRequest);
    return emulator;
  }

  /** End the worker (the API is closing); emulators it held are lost. A later open() starts another. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#lose(worker);
    await worker.terminate();
  }

  /** @internal Post `message` for `emulator`, unless its worker is gone. */
  post(emulator: Emulator, message: EmulatorRequest, transfer?: ArrayBuffer[]): void {
    if (this.#emulators.get(emulator.id) !== emulator) return;
    if (message.op === 'write') {
      emulator.unparsed += message.bytes.length;
      this.#unparsed += message.bytes.length;
      this.#hold();
    }
    this.#worker!.postMessage(message, transfer);
  }

  /** @internal A request whose answer `answer` takes (undefined when the worker is gone first). */
  request(emulator: Emulator, message: DistributiveOmit<Extract<EmulatorRequest, { seq: number }>, 'seq'>, answer: (value: unknown) => void): void {
    if (this.#emulators.get(emulator.id) !== emulator) {
      // Later, as an answer from the worker would be: the caller finishes what it started first.
      queueMicrotask(() => answer(undefined));
      return;
    }
    const seq = ++this.#seq;
    this.#waiting.set(seq, { emulator, answer });
    this.#hold();
    this.#worker!.postMessage({ ...message, seq });
  }

  /** @internal Output queued on `emulator`: post it in FLUSH_MS, with whatever else comes meanwhile. */
  queue(emulator: Emulator): void {
    this.#queued.add(emulator);
    this.#flushTimer ??= setTimeout(() => {
      this.#flushTimer = undefined;
      for (const queued of this.#queued) queued.flush();
      this.#queued.clear();
    }, FLUSH_MS);
  }

  /** @internal The emulator is disposed: forget it. */
  forget(emulator: Emulator): void {
    this.#queued.delete(emulator);
    if (this.#emulators.get(emulator.id) !== emulator) return;
    this.#emulators.delete(emulator.id);
    // What it had not parsed never will be reported: not work the process waits for.
    this.#unparsed -= emulator.unparsed;
    emulator.unparsed = 0;
    this.#hold();
  }

  #start(): Worker {
    // Beside this module: .js when built, .ts when the tests run the sources (the worker inherits their loader).
    const worker = new Worker(new URL(`./emulator-worker${path.extname(import.meta.url)}`, import.meta.url), { name: 'agentbox-terminal-emulators' });
    worker.unref();
    this.#worker = worker;
    worker.on('message', (reply: EmulatorReply) => this.#reply(reply));
    worker.on('error', (err) => this.logger?.error({ event: 'TerminalEmulatorCrashed', err }, 'the terminal emulators’ worker failed'));
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.logger?.error(
        { event: 'TerminalEmulatorExited', code, terminals: this.#emulators.size },
        `the terminal emulators’ worker exited (code ${code}): the screens of ${this.#emulators.size} terminal(s) are lost; new terminals get a new worker`,
      );
      this.#lose(worker);
    });
    return worker;
  }

  /** Reference the worker while it has work, so the process does not end under it; not otherwise. */
  #hold(): void {
    const busy = this.#unparsed > 0 || this.#waiting.size > 0;
    if (busy === this.#held || !this.#worker) return;
    this.#held = busy;
    if (busy) this.#worker.ref();
    else this.#worker.unref();
  }

  #reply(reply: EmulatorReply): void {
    if (reply.op === 'parsed') {
      const { counts } = reply;
      for (let i = 0; i < counts.length; i += 2) {
        const emulator = this.#emulators.get(counts[i]!);
        if (!emulator) continue;
        const bytes = counts[i + 1]!;
        emulator.unparsed -= bytes;
        this.#unparsed -= bytes;
        emulator.events.parsed(bytes);
      }
      this.#hold();
      return;
    }
    const waiting = this.#waiting.get(reply.seq);
    if (!waiting) return;
    this.#waiting.delete(reply.seq);
    this.#hold();
    waiting.answer(reply.op === 'screen' ? reply.bytes : reply.tail);
  }

  /** The worker is gone (crashed, or closed): its emulators and the requests waiting on it with it. */
  #lose(worker: Worker): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    worker.unref();
    this.#held = false;
    this.#unparsed = 0;
    const emulators = [...this.#emulators.values()];
    const waiting = [...this.#waiting.values()];
    this.#emulators.clear();
    this.#waiting.clear();
    this.#queued.clear();
    for (const w of waiting) w.answer(undefined);
    for (const emulator of emulators) emulator.events.lost();
  }
}

/** One agent's emulator, as its terminal uses it. */
export class Emulator {
  /** Output not yet posted (see FLUSH_BYTES). */
  #queue: Buffer[] = [];
  #queuedBytes = 0;
  /** @internal Posted and not yet reported parsed (the host's count). */
  unparsed = 0;

  constructor(
    private readonly host: EmulatorHost,
    readonly id: number,
    readonly events: EmulatorEvents,
  ) {}

  /** Output, in order. The caller may keep using `bytes`: they are copied once, into the buffer transferred to the worker. */
  write(bytes: Buffer): void {
    this.#queue.push(bytes);
    this.#queuedBytes += bytes.length;
    if (this.#queuedBytes >= FLUSH_BYTES) this.flush();
    else if (this.#queue.length === 1) this.host.queue(this);
  }

  resize(cols: number, rows: number): void {
    this.flush();
    this.host.post(this, { op: 'resize', id: this.id, cols, rows });
  }

  /**
   * The serialized screen with up to `scrollback` lines above it, as of everything written so far;
   * undefined when the emulator is lost. `answer` runs from the worker's message, before any output
   * read later is handled.
   */
  screen(scrollback: number, answer: (screen: Buffer | undefined) => void): void {
    this.flush();
    this.host.request(this, { op: 'screen', id: this.id, scrollback }, (value) => {
      const bytes = value as Uint8Array | undefined;
      answer(bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    });
  }

  /** The end of the screen once everything written so far is parsed (prompt-watch.ts); undefined when the emulator is lost. */
  tail(count: number): Promise<ScreenTail | undefined> {
    this.flush();
    return new Promise((resolve) => this.host.request(this, { op: 'tail', id: this.id, count }, (value) => resolve(value as ScreenTail | undefined)));
  }

  dispose(): void {
    this.#queue = [];
    this.#queuedBytes = 0;
    this.host.post(this, { op: 'dispose', id: this.id });
    this.host.forget(this);
  }

  /** @internal Post the queued output as one chunk, in a buffer of its own (a transferred buffer must not be Node's shared pool). */
  flush(): void {
    if (this.#queue.length === 0) return;
    const bytes = new Uint8Array(this.#queuedBytes);
    let at = 0;
    for (const chunk of this.#queue) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    this.#queue = [];
    this.#queuedBytes = 0;
    this.host.post(this, { op: 'write', id: this.id, bytes }, [bytes.buffer]);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
