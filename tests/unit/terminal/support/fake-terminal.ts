// A tty agent's terminal without an agent: a stand-in for the pty master (pause/resume observed) and a viewer that records what it is sent.
import type { AgentTty, TtySize } from '../../../../management-api/src/adapters/orchestrator/agent-tty.js';
import type { TerminalViewer } from '../../../../management-api/src/adapters/orchestrator/agent-terminal.js';

/** The master as AgentTerminal uses it; a producer reads `paused` as an agent blocked on its writes would. */
export class FakeTty {
  size: TtySize = { cols: 80, rows: 24 };
  paused = false;
  pauses = 0;
  #resumed: Array<() => void> = [];

  pause(): void {
    this.paused = true;
    this.pauses++;
  }
  resume(): void {
    this.paused = false;
    for (const wake of this.#resumed.splice(0)) wake();
  }
  /** Resolves once reading goes on (at once when it is not paused). */
  whenReading(): Promise<void> {
    return this.paused ? new Promise((resolve) => this.#resumed.push(resolve)) : Promise.resolve();
  }
  write(): boolean {
    return true;
  }
  resize(size: TtySize): boolean {
    this.size = size;
    return true;
  }
  close(): void {}

  get tty(): AgentTty {
    return this as unknown as AgentTty;
  }
}

/** A viewer keeping every frame: the first data frame is the screen. */
export function recordingViewer(): TerminalViewer & {
  frames: Buffer[];
  records: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  text(): string;
} {
  const frames: Buffer[] = [];
  const records: Array<Record<string, unknown>> = [];
  let close!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (close = resolve));
  return {
    frames,
    records,
    closed,
    text: () => Buffer.concat(frames).toString('utf8'),
    data: (bytes) => frames.push(Buffer.from(bytes)),
    control: (record) => records.push(record),
    buffered: () => 0,
    close: (code, reason) => close({ code, reason }),
  };
}

/** Lines `from`..`to` as `seq` prints them on a terminal (onlcr: \r\n). */
export function seqText(from: number, to: number): string {
  let text = '';
  for (let n = from; n <= to; n++) text += `${n}\r\n`;
  return text;
}

/** The text a serialized screen shows, its control sequences taken out. */
export function plain(serialized: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
  return serialized.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]/g, '');
}
