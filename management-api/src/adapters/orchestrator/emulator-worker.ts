// The worker thread that keeps every tty agent's screen: one headless xterm per agent, parsing its output off the API's event loop.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import headless from '@xterm/headless';
import type { EmulatorReply, EmulatorRequest } from './emulator-protocol.js';
import type { ScreenTail } from './prompt-watch.js';

/** The serialize addon, typed here: its own typings import the browser terminal's, which bring the DOM's types into the API's build. */
interface Serializer {
  serialize(options?: { scrollback?: number }): string;
  dispose(): void;
}
const { SerializeAddon } = createRequire(import.meta.url)('@xterm/addon-serialize') as { SerializeAddon: new () => Serializer };

/** Characters of one screen line a tail keeps (a prompt is short; a line may be as wide as the terminal). */
const TAIL_LINE_CHARS = 400;

type Terminal = InstanceType<typeof headless.Terminal>;
interface Emulator {
  screen: Terminal;
  serializer: Serializer;
}

const port = parentPort!;
const emulators = new Map<number, Emulator>();
const encoder = new TextEncoder();

/** Parsed bytes per emulator not yet reported: sent once per turn of this thread's loop, not once per chunk. */
const parsed = new Map<number, number>();
let reportQueued = false;

function report(id: number, bytes: number): void {
  parsed.set(id, (parsed.get(id) ?? 0) + bytes);
  if (reportQueued) return;
  reportQueued = true;
  queueMicrotask(sendReports);
}

function sendReports(): void {
  reportQueued = false;
  if (parsed.size === 0) return;
  const counts: number[] = [];
  for (const [emulator, n] of parsed) counts.push(emulator, n);
  parsed.clear();
  port.postMessage({ op: 'parsed', counts } satisfies EmulatorReply);
}

/** An answer, after the parsed counts it follows: the host's count is current when the answer arrives. */
function reply(message: EmulatorReply, transfer?: ArrayBuffer[]): void {
  sendReports();
  port.postMessage(message, transfer);
}

port.on('message', (message: EmulatorRequest) => {
  if (message.op === 'open') {
    const screen = new headless.Terminal({ cols: message.cols, rows: message.rows, scrollback: message.scrollback, allowProposedApi: true });
    const serializer = new SerializeAddon();
    screen.loadAddon(serializer as never);
    emulators.set(message.id, { screen, serializer });
    return;
  }
  const emulator = emulators.get(message.id);
  // Messages posted before the host learnt of a dispose: nothing to do.
  if (!emulator) return;
  const { screen } = emulator;
  switch (message.op) {
    case 'write': {
      const { id, bytes } = message;
      screen.write(bytes, () => report(id, bytes.length));
      return;
    }
    case 'resize':
      // After the output posted before it, as the agent saw the resize after writing that output.
      screen.write('', () => screen.resize(message.cols, message.rows));
      return;
    case 'screen':
      // xterm parses in slices of this thread's loop: the callback runs once everything written before it is parsed.
      screen.write('', () => {
        const bytes = encoder.encode(emulator.serializer.serialize({ scrollback: message.scrollback }));
        reply({ op: 'screen', seq: message.seq, bytes }, [bytes.buffer as ArrayBuffer]);
      });
      return;
    case 'tail':
      screen.write('', () => reply({ op: 'tail', seq: message.seq, tail: tailOf(screen, message.count) }));
      return;
    case 'dispose':
      emulators.delete(message.id);
      screen.dispose();
      return;
  }
});

/**
 * The end of the screen: the cursor's line (or, when blank, the last non-blank one above it) and
 * the last `count` lines up to the cursor or the last written line of the screen, whichever is
 * lower, blank lines at either end dropped.
 */
function tailOf(screen: Terminal, count: number): ScreenTail {
  const buffer = screen.buffer.active;
  const text = (row: number): string => (buffer.getLine(row)?.translateToString(true) ?? '').slice(0, TAIL_LINE_CHARS).trimEnd();
  const cursorRow = buffer.baseY + buffer.cursorY;
  let end = cursorRow;
  for (let row = buffer.baseY + screen.rows - 1; row > cursorRow; row--)
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
  return { cursorRow, promptLine, lines };
}
