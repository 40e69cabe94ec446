// The messages between the API and the worker thread that hosts every tty agent's terminal emulator (emulator-host.ts, emulator-worker.ts).
import type { ScreenTail } from './prompt-watch.js';

/**
 * To the worker. Each emulator is named by a number the host gives it. Messages of one emulator are
 * handled in the order they were posted, and a request (`screen`, `tail`) is answered once the
 * emulator has parsed every `write` posted before it: that is what lets a late viewer's screen and
 * the output sent after it meet exactly.
 */
export type EmulatorRequest =
  | { op: 'open'; id: number; cols: number; rows: number; scrollback: number }
  /** Output, its buffer transferred (no copy on the way). */
  | { op: 'write'; id: number; bytes: Uint8Array }
  | { op: 'resize'; id: number; cols: number; rows: number }
  /** The serialized screen with up to `scrollback` lines above it. */
  | { op: 'screen'; id: number; seq: number; scrollback: number }
  | { op: 'tail'; id: number; seq: number; count: number }
  | { op: 'dispose'; id: number };

/** From the worker. */
export type EmulatorReply =
  /** Bytes parsed since the last such message, as pairs: emulator, bytes (the host's back-pressure). */
  | { op: 'parsed'; counts: number[] }
  /** A `screen` answered: its UTF-8, the buffer transferred. */
  | { op: 'screen'; seq: number; bytes: Uint8Array }
  | { op: 'tail'; seq: number; tail: ScreenTail };
