// The WebSocket to a tty agent's terminal (GET /v1/agents/:id/terminal): bytes in and out, resizes, the exit record, and why it closed.
import type { Agent } from '../types.js';

/** How a connection ended. */
export type TerminalEnd =
  /** The agent has ended (its exit record came), or the box closed the view on purpose. */
  | { kind: 'exit'; agent: Agent }
  /** The connection never opened: refused before the upgrade (401, 403, 404, 409) or the box is unreachable. */
  | { kind: 'refused' }
  /** It was open and closed, with the box's code and reason (1013: too slow; 1001: the agent is gone). */
  | { kind: 'closed'; code: number; reason: string };

/** What a connection reports. */
export interface TerminalEvents {
  open(): void;
  data(bytes: Uint8Array): void;
  /** A record the box could not use (the socket stays open). */
  problem(message: string): void;
  end(how: TerminalEnd): void;
}

/** One open connection. */
export interface TerminalConnection {
  send(bytes: Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** Detach (the agent runs on); no `end` is reported after this. */
  close(): void;
}

/** The terminal's URL on this page's own origin: the session cookie goes with it, and the box checks the Origin. */
export function terminalUrl(agentId: string, page: Location = location): string {
  const scheme = page.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${page.host}/v1/agents/${encodeURIComponent(agentId)}/terminal`;
}

/** Attach to `agentId`'s terminal. */
export function connectTerminal(agentId: string, events: TerminalEvents): TerminalConnection {
  const socket = new WebSocket(terminalUrl(agentId));
  socket.binaryType = 'arraybuffer';
  let opened = false;
  let exit: Agent | undefined;
  let closing = false;

  socket.onopen = () => {
    opened = true;
    // Detached while connecting: closed now, since closing a socket still connecting is reported as a failure by the browser.
    if (closing) socket.close(1000, 'detached');
    else events.open();
  };
  socket.onmessage = (message: MessageEvent<ArrayBuffer | string>) => {
    if (typeof message.data !== 'string') {
      events.data(new Uint8Array(message.data));
      return;
    }
    const record = parse(message.data);
    if (record?.type === 'exit') exit = (record['agent'] ?? {}) as Agent;
    else if (record?.type === 'error') events.problem(String(record['message'] ?? 'the box could not use a message'));
  };
  socket.onclose = (close) => {
    if (closing) return;
    if (exit) events.end({ kind: 'exit', agent: exit });
    else if (!opened) events.end({ kind: 'refused' });
    else events.end({ kind: 'closed', code: close.code, reason: close.reason });
  };

  const open = () => socket.readyState === WebSocket.OPEN;
  return {
    send: (bytes) => open() && socket.send(bytes),
    resize: (cols, rows) => open() && socket.send(JSON.stringify({ type: 'resize', cols, rows })),
    close() {
      closing = true;
      if (socket.readyState === WebSocket.OPEN) socket.close(1000, 'detached');
    },
  };
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
