// A real adapter for tests: talks to a TcpBackend over TCP, so failures are real (refused, reset, hung).
import net from 'node:net';
import type { AdapterModule, SlotHealth, SlotName } from '../../../management-api/src/adapters/adapter.js';
import { AdapterUnavailableError } from '../../../management-api/src/adapter-errors.js';
import { CONTRACT_VERSIONS, OPERATIONS, type SlotAdapters } from '../../../management-api/src/adapters/slot-types.js';

/** One TCP connection with a FIFO of outstanding request lines. */
class LineClient {
  #buffer = '';
  readonly #waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void }> = [];
  closed = false;

  constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk) => {
      this.#buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = this.#buffer.indexOf('\n')) >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        this.#waiting.shift()?.resolve(line);
      }
    });
    const fail = (err?: Error): void => {
      this.closed = true;
      for (const w of this.#waiting.splice(0)) w.reject(err ?? new Error('connection closed'));
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
  }

  /** Send one line and wait for the answer line. */
  request(line: string, signal?: AbortSignal): Promise<string> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject };
      this.#waiting.push(entry);
      // An answer may still arrive for an abandoned request and desynchronise the stream:
      // give up the connection instead, as a real client would.
      signal?.addEventListener('abort', () => this.socket.destroy(new Error('aborted')), { once: true });
      this.socket.write(`${line}\n`);
    });
  }
}

function open(port: number, signal: AbortSignal): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const onAbort = (): void => {
      socket.destroy();
      reject(new Error('connect aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      resolve(socket);
    });
    socket.once('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
  });
}

/**
 * An implementation module for `slot` backed by 127.0.0.1:port. connect() opens a connection and
 * needs a PONG; health() pings again; operations round-trip and return what the slot expects
 * (events.append returns stored events; other operations return the echoed arguments).
 */
export function tcpAdapterModule<S extends SlotName>(slot: S, port: number): AdapterModule<SlotAdapters[S]> {
  return {
    ADAPTER: `${slot}/tcp-test`,
    CONTRACT_VERSION: CONTRACT_VERSIONS[slot],
    create: () => {
      let client: LineClient | undefined;
      let seq = 0;
      const adapter: Record<string, unknown> = {
        async connect(signal: AbortSignal) {
          client?.socket.destroy();
          const socket = await open(port, signal);
          client = new LineClient(socket);
          const answer = await client.request('PING', signal);
          if (answer !== 'PONG') throw new Error(`unexpected handshake answer ${answer}`);
        },
        async health(signal: AbortSignal): Promise<SlotHealth> {
          if (!client || client.closed) return { state: 'degraded', reason: 'connection-lost' };
          try {
            return (await client.request('PING', signal)) === 'PONG' ? { state: 'healthy' } : { state: 'degraded', reason: 'bad-answer' };
          } catch (err) {
            return { state: 'degraded', reason: `ping-failed: ${(err as Error).message}` };
          }
        },
        async close() {
          client?.socket.destroy();
          client = undefined;
        },
      };
      for (const op of OPERATIONS[slot] as readonly string[]) {
        adapter[op] = async (...args: unknown[]) => {
          if (!client || client.closed) throw new AdapterUnavailableError(slot, 'connection lost');
          let answer: string;
          try {
            answer = await client.request(`OP ${JSON.stringify({ op, args })}`);
          } catch (err) {
            throw new AdapterUnavailableError(slot, (err as Error).message, { cause: err });
          }
          const echoed = JSON.parse(answer.slice(3)) as { args: unknown[] };
          if (slot === 'events' && op === 'append') {
            return (echoed.args[0] as Array<Record<string, unknown>>).map((e) => ({ id: `ev-${++seq}`, seq, time: new Date().toISOString(), ...e }));
          }
          return echoed.args;
        };
      }
      return adapter as unknown as SlotAdapters[S];
    },
  };
}
