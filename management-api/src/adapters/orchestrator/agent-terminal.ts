// A tty agent's terminal on the server: its screen and scrollback (a headless terminal emulator in the emulators' worker), its viewers, its input.
import type { Emulator, EmulatorHost } from './emulator-host.js';
import type { AgentTty, TtySize } from './agent-tty.js';
import type { ScreenReader, ScreenTail } from './prompt-watch.js';

/** Lines of scrollback the server keeps per agent. */
export const SCROLLBACK_LINES = 10_000;
/**
 * Lines of scrollback a late viewer is sent before the screen. Serializing all 10,000 takes ~100 ms
 * (of the emulators' worker, which the other agents' screens then wait for); 1,000 take ~15 ms.
 * The whole output is in the agent's output log besides.
 */
export const ATTACH_SCROLLBACK_LINES = 1_000;
/** Output a viewer may leave unsent before it is dropped (a slow viewer never holds the agent or the others back). */
export const MAX_VIEWER_BUFFER = 1024 * 1024;
/** Output posted to the emulator and not yet parsed (by the worker's count) above which the terminal stops reading (the agent then waits, as on a real terminal). */
export const EMULATOR_HIGH_WATER = 1024 * 1024;
export const EMULATOR_LOW_WATER = 256 * 1024;

/** One viewer, as the transport (a WebSocket) gives it. */
export interface TerminalViewer {
  /** Terminal data (the screen first, then output). */
  data(bytes: Buffer): void;
  /** A control record (the agent's end). */
  control(record: Record<string, unknown>): void;
  /** Bytes sent and not yet taken by the peer. */
  buffered(): number;
  /** Drop the viewer, saying why. */
  close(code: number, reason: string): void;
}

/** What an attached viewer holds. */
export interface TerminalAttachment {
  detach(): void;
}

/** What routes see of an agent's terminal. */
export interface AgentTerminalHandle {
  readonly size: TtySize;
  readonly live: boolean;
  attach(viewer: TerminalViewer): TerminalAttachment;
  /** Type into the agent's terminal; false once it has closed. */
  input(data: string | Buffer): boolean;
  /** False once it has closed. */
  resize(size: TtySize): boolean;
}

interface Attached {
  viewer: TerminalViewer;
  /** Output that arrived while the screen was being prepared; undefined once it was sent. */
  pending: Buffer[] | undefined;
  pendingBytes: number;
}

/** What a viewer is sent instead of the screen when the emulator is gone (its worker crashed). */
export const SCREEN_UNAVAILABLE =
  '\r\n[agentbox: the screen of this terminal is unavailable (the terminal emulator stopped); the output from here on follows]\r\n';

/** The server side of one tty agent's terminal. */
export class AgentTerminal implements AgentTerminalHandle, ScreenReader {
  readonly #tty: AgentTty;
  readonly #emulator: Emulator;
  readonly #viewers = new Set<Attached>();
  /** Output posted to the emulator and not yet parsed by the worker. */
  #unparsed = 0;
  #paused = false;
  /** The emulator's worker ended under it: output still flows to viewers, with no screen kept. */
  #lost = false;
  #ended: Record<string, unknown> | undefined;
  #outputEnded = false;
  /** When input was last typed (ms since the epoch; 0 before any). */
  lastInputAt = 0;
  /** Told of every input, whoever typed it (the prompt watch withdraws a reported prompt). */
  onInput: (() => void) | undefined;

  constructor(tty: AgentTty, emulators: EmulatorHost) {
    this.#tty = tty;
    this.#emulator = emulators.open(tty.size, SCROLLBACK_LINES, { parsed: (bytes) => this.#parsed(bytes), lost: () => this.#emulatorLost() });
  }

  get size(): TtySize {
    return this.#tty.size;
  }

  get live(): boolean {
    return !this.#outputEnded;
  }

  /** Output posted to the emulator and not yet parsed: what back-pressure bounds. */
  get unparsedBytes(): number {
    return this.#unparsed;
  }

  /** Output of the agent: to the emulator (parsed by its worker) and to every viewer. */
  output(bytes: Buffer): void {
    if (!this.#lost) {
      this.#unparsed += bytes.length;
      this.#emulator.write(bytes);
      if (!this.#paused && this.#unparsed > EMULATOR_HIGH_WATER) {
        this.#paused = true;
        this.#tty.pause();
      }
    }
    for (const a of this.#viewers) this.#send(a, bytes);
  }

  /** No more output (every process closed the terminal). */
  outputEnded(): void {
    this.#outputEnded = true;
    this.#finishWhenDone();
  }

  /** The agent's final record: sent to every viewer once the output has ended too, then they are closed. */
  ended(record: Record<string, unknown>): void {
    this.#ended = record;
    this.#finishWhenDone();
  }

  attach(viewer: TerminalViewer): TerminalAttachment {
    const attached: Attached = { viewer, pending: [], pendingBytes: 0 };
    this.#viewers.add(attached);
    // The worker answers once it has parsed everything posted before this request; output read
    // meanwhile waits in `pending`, so the screen and the output sent after it meet exactly.
    this.#emulator.screen(ATTACH_SCROLLBACK_LINES, (screen) => {
      if (!this.#viewers.has(attached)) return;
      viewer.data(screen ?? Buffer.from(SCREEN_UNAVAILABLE, 'utf8'));
      const pending = attached.pending ?? [];
      attached.pending = undefined;
      for (const bytes of pending) this.#send(attached, bytes);
      if (this.#ended && this.#outputEnded) this.#finish(attached);
    });
    return { detach: () => this.#viewers.delete(attached) };
  }

  input(data: string | Buffer): boolean {
    // Read by idle_timeout_sec (agent-deadlines.ts): a person typing keeps a tty agent alive.
    this.lastInputAt = Date.now();
    this.onInput?.();
    return this.#tty.write(data);
  }

  resize(size: TtySize): boolean {
    if (!this.#tty.resize(size)) return false;
    this.#emulator.resize(size.cols, size.rows);
    return true;
  }

  /**
   * The end of the screen once everything written so far is parsed: the cursor's line (or, when
   * blank, the last non-blank one above it) and the last `count` lines up to the cursor or the
   * last written line of the screen, whichever is lower, blank lines at either end dropped
   * (emulator-worker.ts). Undefined once the emulator is lost.
   */
  tail(count: number): Promise<ScreenTail | undefined> {
    return this.#emulator.tail(count);
  }

  /** Close the master (the agent's processes are gone, or should be). */
  closeTerminal(): void {
    this.#tty.close();
  }

  /** Free the emulator (the agent's record is being forgotten). */
  dispose(): void {
    for (const a of this.#viewers) a.viewer.close(1001, 'the agent is gone');
    this.#viewers.clear();
    this.#emulator.dispose();
  }

  #parsed(bytes: number): void {
    this.#unparsed -= bytes;
    if (this.#paused && this.#unparsed <= EMULATOR_LOW_WATER) {
      this.#paused = false;
      this.#tty.resume();
    }
  }

  /** Nothing the worker held will be parsed now: reading goes on (the output log and viewers still take it). */
  #emulatorLost(): void {
    this.#lost = true;
    this.#unparsed = 0;
    if (this.#paused) {
      this.#paused = false;
      this.#tty.resume();
    }
  }

  #send(attached: Attached, bytes: Buffer): void {
    if (attached.pending) {
      attached.pending.push(bytes);
      attached.pendingBytes += bytes.length;
      if (attached.pendingBytes > MAX_VIEWER_BUFFER) this.#drop(attached);
      return;
    }
    if (attached.viewer.buffered() > MAX_VIEWER_BUFFER) this.#drop(attached);
    else attached.viewer.data(bytes);
  }

  #drop(attached: Attached): void {
    this.#viewers.delete(attached);
    attached.viewer.close(1013, `viewer too slow: more than ${MAX_VIEWER_BUFFER} bytes of output unsent; attach again for the current screen`);
  }

  #finishWhenDone(): void {
    if (!this.#ended || !this.#outputEnded) return;
    // A viewer still waiting for its screen is finished once it has it (attach); the others have every byte already.
    for (const a of this.#viewers) if (!a.pending) this.#finish(a);
  }

  #finish(attached: Attached): void {
    this.#viewers.delete(attached);
    attached.viewer.control({ type: 'exit', agent: this.#ended });
    attached.viewer.close(1000, 'the agent has ended');
  }
}
