// A real TCP backend for test adapters: answers PING with PONG and echoes operations, until stopped.
import net from 'node:net';
import { freePort } from '../../helpers/free-port.js';
export { freePort };

/**
 * Line protocol: `PING` → `PONG`; `OP <json>` → `OK <json>`. With `silent`, it accepts
 * connections and never answers (a backend that hangs).
 */
export class TcpBackend {
  #server: net.Server | undefined;
  readonly #sockets = new Set<net.Socket>();
  /** Lines received, for assertions. */
  readonly received: string[] = [];

  constructor(
    readonly port: number,
    private readonly options: { silent?: boolean } = {},
  ) {}

  /** Stop (or resume) answering while keeping connections open: a hung backend. */
  setSilent(silent: boolean): void {
    this.options.silent = silent;
  }

  /** Start listening on 127.0.0.1:port. */
  async start(): Promise<void> {
    const server = net.createServer((socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => undefined);
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          this.received.push(line);
          if (this.options.silent) continue;
          if (line === 'PING') socket.write('PONG\n');
          else if (line.startsWith('OP ')) socket.write(`OK ${line.slice(3)}\n`);
          else socket.write('ERR unknown\n');
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
  }

  /** Stop listening and drop every connection (the backend "disappears"). */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
