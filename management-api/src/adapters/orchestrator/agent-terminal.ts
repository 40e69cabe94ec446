// A tty agent's terminal on the server: its screen and scrollback (a headless terminal emulator), its viewers, its input.
import { createRequire } from 'node:module';
import headless from '@xterm/headless';
import type { AgentTty, TtySize } from './agent-tty.js';
import type { ScreenReader, ScreenTail } from './prompt-watch.js';

/** The serialize addon, typed here: its own typings import the browser terminal's, which bring the DOM's types into the API's build. */
interface Serializer {
  serialize(options?: { scrollback?: number }): string;
  dispose(): void;
}
const { SerializeAddon } = createRequire(import.meta.url)('@xterm/addon-serialize') as { SerializeAddon: new () => Serializer };

/** Lines of scrollback the server keeps per agent. */
export const SCROLLBACK_LINES = 10_000;
/**
 * Lines of scrollback a late viewer is sent before the screen. Serializing all 10,000 takes ~100 ms
 * of the event loop; 1,000 take ~15 ms. The whole output is in the agent's output log besides.
 */
export const ATTACH_SCROLLBACK_LINES = 1_000;
/** Output a viewer may leave unsent before it is dropped (a slow viewer never holds the agent or the others back). */
export const MAX_VIEWER_BUFFER = 1024 * 1024;
/** Output handed to the emulator and not yet parsed above which the terminal stops reading (the agent then waits, as on a real terminal). */
const EMULATOR_HIGH_WATER = 1024 * 1024;
const EMULATOR_LOW_WATER = 256 * 1024;

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

/** Characters of one screen line a tail keeps (a prompt is short; a line may be as wide as the terminal). */
const TAIL_LINE_CHARS = 400;

/** The server side of one tty agent's terminal. */
export class AgentTerminal implements AgentTerminalHandle, ScreenReader {
  readonly #tty: AgentTty;
  readonly #screen: InstanceType<typeof headless.Terminal>;
  readonly #serializer = new SerializeAddon();
  readonly #viewers = new Set<Attached>();
  #unparsed = 0;
  #paused = false;
  #ended: Record<string, unknown> | undefined;
  #outputEnded = false;
  /** When input was last typed (ms since the epoch; 0 before any). */
  lastInputAt = 0;
  /** Told of every input, whoever typed it (the prompt watch withdraws a reported prompt). */
  onInput: (() => void) | undefined;

  constructor(tty: AgentTty) {
    this.#tty = tty;
    const { cols, rows } = tty.size;
    this.#screen = new headless.Terminal({ cols, rows, scrollback: SCROLLBACK_LINES, allowProposedApi: true });
    this.#screen.loadAddon(this.#serializer as never);
  }

  get size(): TtySize {
    return this.#tty.size;
  }

  get live(): boolean {
    return !this.#outputEnded;
  }

  /** Output of the agent: into the emulator (parsed in slices of the event loop) and to every viewer. */
  output(bytes: Buffer): void {
    this.#unparsed += bytes.length;
    this.#screen.write(bytes, () => {
      this.#unparsed -= bytes.length;
      if (this.#paused && this.#unparsed <= EMULATOR_LOW_WATER) {
        this.#paused = false;
        this.#tty.resume();
      }
    });
    if (!this.#paused && this.#unparsed > EMULATOR_HIGH_WATER) {
      this.#paused = true;
      this.#tty.pause();
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
    // The emulator parses asynchronously: this callback runs once everything written before it is
    // parsed and before anything written after it, so the screen and the output sent after it meet exactly.
    this.#screen.write('', () => {
      if (!this.#viewers.has(attached)) return;
      const screen = this.#serializer.serialize({ scrollback: ATTACH_SCROLLBACK_LINES });
      viewer.data(Buffer.from(screen, 'utf8'));
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
    this.#screen.resize(size.cols, size.rows);
    return true;
  }

  /**
   * The end of the screen once everything written so far is parsed: the cursor's line (or, when
   * blank, the last non-blank one above it) and the last `count` lines up to the cursor or the
   * last written line of the screen, whichever is lower, blank lines at either end dropped.
   */
  tail(count: number): Promise<ScreenTail> {
    return new Promise((resolve) => {
      this.#screen.write('', () => {
        const buffer = this.#screen.buffer.active;
        const text = (row: number): string => (buffer.getLine(row)?.translateToString(true) ?? '').slice(0, TAIL_LINE_CHARS).trimEnd();
        const cursorRow = buffer.baseY + buffer.cursorY;
        let end = cursorRow;
        for (let row = buffer.baseY + this.#screen.rows - 1; row > cursorRow; row--)
          if (text(row)) {
            end = row;
            break;
          }
        let promptLine = text(cursorRow);
        if (!promptLine && cursorRow > 0) promptLine = text(cursorRow - 1);
        const lines: string[] = [];
        for (let row = Math.max(0, end - count + 1); row <= end; row++) lines.push(text(row));
        while (lines.length && !lines[0]) lines.shift();
        while (lines.length && !lines[lines.length - 1]) lines.pop();
        resolve({ cursorRow, promptLine, lines });
      });
    });
  }

  /** Close the master (the agent's processes are gone, or should be). */
  closeTerminal(): void {
    this.#tty.close();
  }

  /** Free the emulator (the agent's record is being forgotten). */
  dispose(): void {
    for (const a of this.#viewers) a.viewer.close(1001, 'the agent is gone');
    this.#viewers.clear();
    this.#screen.dispose();
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
    // After the emulator has parsed what is left, so a viewer still waiting for its screen gets it first.
    this.#screen.write('', () => {
      for (const a of this.#viewers) if (!a.pending) this.#finish(a);
    });
  }

  #finish(attached: Attached): void {
    this.#viewers.delete(attached);
    attached.viewer.control({ type: 'exit', agent: this.#ended });
    attached.viewer.close(1000, 'the agent has ended');
  }
}
