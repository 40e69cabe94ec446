// A tty agent's pseudo-terminal: the master the box keeps, the launcher argv that gives the agent the other end.
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import tty from 'node:tty';
import { AdapterInputError } from '../../adapter-errors.js';
import type { ConfinedSpawn } from '../../sandbox/agent-sandbox.js';

/** Bounds of a terminal's size (columns, rows), for a spawn and for every resize. */
/** The terminal type tty agents are told they run on: the box emulates an xterm (@xterm/headless, xterm.js in the dashboard). */
export const TTY_TERM = 'xterm-256color';

export const TTY_COLS = { min: 2, max: 500, default: 120 } as const;
export const TTY_ROWS = { min: 2, max: 200, default: 40 } as const;

/** The size of a terminal. */
export interface TtySize {
  cols: number;
  rows: number;
}

/** node-pty's native binding: only its TIOCSWINSZ on a master is used (the pty itself is opened here, close-on-exec). */
interface PtyBinding {
  resize(fd: number, cols: number, rows: number): void;
}
let binding: PtyBinding | undefined;
function ptyBinding(): PtyBinding {
  binding ??= (createRequire(import.meta.url)('node-pty/lib/utils.js') as { loadNativeModule(name: string): { module: PtyBinding } }).loadNativeModule(
    'pty',
  ).module;
  return binding;
}

/** Refuse a size outside the bounds (AdapterInputError, a 400). */
export function checkTtySize(size: { cols?: unknown; rows?: unknown }): TtySize {
  const cols = size.cols ?? TTY_COLS.default;
  const rows = size.rows ?? TTY_ROWS.default;
  if (!Number.isInteger(cols) || (cols as number) < TTY_COLS.min || (cols as number) > TTY_COLS.max)
    throw new AdapterInputError(`cols must be an integer from ${TTY_COLS.min} to ${TTY_COLS.max}`);
  if (!Number.isInteger(rows) || (rows as number) < TTY_ROWS.min || (rows as number) > TTY_ROWS.max)
    throw new AdapterInputError(`rows must be an integer from ${TTY_ROWS.min} to ${TTY_ROWS.max}`);
  return { cols: cols as number, rows: rows as number };
}

/**
 * The master of one agent's terminal. It is opened here rather than by node-pty's spawn: Node
 * opens it close-on-exec, so no other process the API starts (another agent) inherits it, and the
 * agent is spawned as any other (its ready pipe, its exit status, its signals). The launcher takes
 * the other end from it (`--tty`, agentbox-tty.c) and closes it before anything of the agent runs.
 */
export class AgentTty {
  readonly #fd: number;
  #stream: tty.ReadStream | undefined;
  #closed = false;
  #size: TtySize;
  #onData: ((data: Buffer) => void) | undefined;

  constructor(size: TtySize) {
    this.#size = size;
    this.#fd = openSync('/dev/ptmx', constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
  }

  get size(): TtySize {
    return this.#size;
  }

  /** The descriptor number the master has in the spawned process: the stdio entry after the others. */
  childFd(stdio: readonly unknown[]): number {
    return stdio.length;
  }

  /**
   * The spawn of `confined` on this terminal: the launcher (the one the sandbox runs, or `launcher`
   * when the sandbox is off) with `--tty FD COLSxROWS` first, and the master as descriptor FD.
   */
  spawnOf(confined: ConfinedSpawn, launcher: string | undefined, stdio: unknown[]): { command: string; args: string[]; stdio: unknown[] } {
    const viaLauncher = confined.keeper === true || confined.readyFd === true;
    if (!viaLauncher && !launcher) throw new AdapterInputError('tty: this orchestrator runs agents without the sandbox launcher, which sets up their terminal');
    const fd = this.childFd(stdio);
    const prefix = ['--tty', String(fd), `${this.#size.cols}x${this.#size.rows}`];
    const full = [...stdio, this.#fd];
    if (viaLauncher) return { command: confined.command, args: [...prefix, ...confined.args], stdio: full };
    return { command: launcher!, args: [...prefix, '--', confined.command, ...confined.args], stdio: full };
  }

  /**
   * Start reading the agent's output (call once the spawn returned). `onEnd` runs once every
   * process holding the terminal has closed it (the master then reads EIO) or it was closed here.
   */
  read(onData: (data: Buffer) => void, onEnd: () => void): tty.ReadStream {
    // Half open: at the end of reading the stream keeps the descriptor, for the drain below.
    const stream = new tty.ReadStream(this.#fd, { allowHalfOpen: true });
    this.#stream = stream;
    this.#onData = onData;
    stream.on('data', (data: Buffer | string) => onData(typeof data === 'string' ? Buffer.from(data) : data));
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.#closed = true;
      onEnd();
    };
    // EIO is how a master says that no process holds the terminal any longer.
    stream.on('error', end);
    stream.on('close', end);
    // libuv calls a hang-up with a short read the end of the stream, but a master's reads are
    // short by nature (at most 4095 bytes), and the kernel may still hold what the agent wrote
    // last (tens of KiB). Read it here, until the master says EIO, before the output ends.
    stream.on('end', () => {
      if (ended) return;
      // Until EIO; not past an end seen meanwhile (an error, or the master closed here).
      void drainMaster(this.#fd, onData, () => ended || stream.destroyed).finally(() => {
        end();
        stream.destroy();
      });
    });
    return stream;
  }

  /** Type `data` into the terminal (false once it is closed). */
  write(data: string | Buffer): boolean {
    if (this.#closed || !this.#stream) return false;
    this.#stream.write(data);
    return true;
  }

  /** Resize the terminal (the agent gets SIGWINCH); false once it is closed. */
  resize(size: TtySize): boolean {
    if (this.#closed) return false;
    ptyBinding().resize(this.#fd, size.cols, size.rows);
    this.#size = size;
    return true;
  }

  /** Stop reading when the consumer is behind (the agent then blocks on its writes), and go on. */
  pause(): void {
    this.#stream?.pause();
  }
  resume(): void {
    this.#stream?.resume();
  }

  /**
   * Close the master (the agent gets SIGHUP if it still runs). What the kernel still holds of the
   * agent's output is read first: reading may be paused (the screen behind), and an agent that
   * exited has written its last bytes into the terminal, where they would be lost with the master.
   */
  close(): void {
    if (this.#stream) {
      if (!this.#closed && !this.#stream.destroyed && this.#onData) readWhatIsThere(this.#fd, this.#onData);
      this.#stream.destroy();
      return;
    }
    if (!this.#closed) closeSync(this.#fd);
    this.#closed = true;
  }
}

/**
 * Read a master until it has nothing more right now (EAGAIN) or no holder (EIO), without waiting.
 * Synchronous, so libuv (whose reads are paused or between callbacks) never reads it meanwhile.
 */
function readWhatIsThere(fd: number, onData: (data: Buffer) => void): void {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      return;
    }
    if (n <= 0) return;
    onData(Buffer.from(buffer.subarray(0, n)));
  }
}

/** How long a drain waits for the terminal's last holder to close it (a process still exiting). */
export const DRAIN_WAIT_MS = 2_000;

/**
 * Read what is left in a hung-up master (non-blocking) until it says EIO: no process holds the
 * terminal any more and the kernel has handed over everything it was given (a read flushes the
 * line discipline's pending work first). EAGAIN means some process (one of the agent's, still
 * exiting) holds it yet: wait and read again, for at most DRAIN_WAIT_MS. Stops at once when
 * `closed()` says the master was closed meanwhile (its descriptor may be reused).
 */
export async function drainMaster(fd: number, onData: (data: Buffer) => void, closed: () => boolean = () => false): Promise<void> {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  const until = Date.now() + DRAIN_WAIT_MS;
  while (!closed()) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() >= until) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    if (n <= 0) return;
    onData(Buffer.from(buffer.subarray(0, n)));
  }
}
