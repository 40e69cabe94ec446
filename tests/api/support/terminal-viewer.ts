// A WebSocket viewer of an agent's terminal, as a script or the dashboard holds one: what it was sent, and waits on it.
import WebSocket from 'ws';
import type { TestServer } from './harness.js';

/** An open viewer. */
export interface Viewer {
  socket: WebSocket;
  /** Terminal data received so far (the screen first), as text. */
  text(): string;
  /** The first binary frame: the screen as it was on attach. */
  screen(): Promise<string>;
  /** Text (JSON) frames received. */
  records: Array<Record<string, unknown>>;
  /** Resolves once the terminal data holds `pattern` (after `from` characters). */
  waitFor(pattern: RegExp | string, from?: number, ms?: number): Promise<string>;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  send(data: string | Buffer | Record<string, unknown>): void;
}

/** Open a viewer of agent `id` with `headers` (the key by default); rejects with the HTTP status when the upgrade is refused. */
export function openViewer(box: TestServer, id: string, headers: Record<string, string> = { authorization: `Bearer ${box.key}` }): Promise<Viewer> {
  const url = `${box.server.apiUrl.replace(/^http/, 'ws')}/v1/agents/${id}/terminal`;
  const socket = new WebSocket(url, { headers });
  let data = '';
  let screen: (value: string) => void;
  const first = new Promise<string>((resolve) => (screen = resolve));
  const records: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  socket.on('message', (message: Buffer, isBinary) => {
    if (isBinary) {
      if (data === '') screen(message.toString('utf8'));
      data += message.toString('utf8');
    } else records.push(JSON.parse(message.toString('utf8')) as Record<string, unknown>);
    for (const w of waiters) w();
  });
  const viewer: Viewer = {
    socket,
    text: () => data,
    screen: () => first,
    records,
    closed,
    waitFor(pattern, from = 0, ms = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const rest = data.slice(from);
          if (typeof pattern === 'string' ? rest.includes(pattern) : pattern.test(rest)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(rest);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${String(pattern)} in the terminal; it shows ${JSON.stringify(data.slice(-400))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    send(message) {
      if (Buffer.isBuffer(message)) socket.send(message, { binary: true });
      else if (typeof message === 'string') socket.send(Buffer.from(message), { binary: true });
      else socket.send(JSON.stringify(message));
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(viewer));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
    });
    socket.once('error', reject);
  });
}

/** What openViewer rejects with when the upgrade is refused with `status` (and a body matching `body`), for t.rejects. */
export function refused(status: number, body?: RegExp): { message: RegExp; status: number; body?: RegExp } {
  return { message: new RegExp(`^upgrade refused: ${status} `), status, ...(body ? { body } : {}) };
}
