// The two ends of the egress benchmark, each its own process: `serve` (a silent and a bulk server) and `fetch` (one client run, results as JSON).
//
// Keeping the measured client and server out of the process that drives the benchmark (and out
// of the proxy's) makes the direct and the proxied paths cost the same kind of work: a direct
// transfer is two processes, a proxied one three, as an agent, the proxy and a server are.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

/** Bytes the bulk server sends on each connection. */
export const BULK_BYTES = 256 * 1024 * 1024;

/** Where a fetch goes: a server port, directly or through a CONNECT tunnel of the proxy. */
export interface FetchTarget {
  port: number;
  via?: { port: number; auth: string };
}

/** What one `fetch` run reports. */
export interface FetchResult {
  /** Set-up times in ms (connect, or connect + CONNECT answered), one per connection. */
  setup: number[];
  /** Bytes per second of the bulk read, when one was asked. */
  rate?: number;
  /** CPU ms the client used for the bulk read (user + system). */
  cpuMs?: number;
}

/** A server that sends `bytes` of filler on each connection, then ends it (kept in step with the client's reads). */
export function bulkServer(bytes: number): net.Server {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  return net.createServer((s) => {
    s.on('error', () => undefined);
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!s.write(chunk)) return void s.once('drain', pump);
      }
      s.end();
    };
    pump();
  });
}

/**
 * Wait for a proxy's answer to a CONNECT written on `s`: resolves once a 200 head has come (the
 * socket paused, any bytes after the head put back), rejects naming any other answer.
 */
export function connectAnswered(s: net.Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const onData = (d: Buffer): void => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      s.off('data', onData);
      // Paused until the caller listens: a flowing socket with no 'data' listener drops what arrives.
      s.pause();
      if (!head.subarray(0, 12).toString('latin1').startsWith('HTTP/1.1 200')) {
        reject(new Error(`proxy answered ${head.toString('latin1').split('\r\n')[0]}`));
        return;
      }
      if (head.length > end + 4) s.unshift(head.subarray(end + 4));
      resolve();
    };
    s.on('data', onData);
  });
}

/** Serve until killed; prints `{"idle": port, "bulk": port}` once both listen. */
async function serve(): Promise<void> {
  const idle = net.createServer((s) => s.on('error', () => undefined));
  const bulk = bulkServer(BULK_BYTES);
  await Promise.all([idle, bulk].map((srv) => new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))));
  process.stdout.write(`${JSON.stringify({ idle: (idle.address() as net.AddressInfo).port, bulk: (bulk.address() as net.AddressInfo).port })}\n`);
}

/** A connected socket to the target, paused, with any bytes after the CONNECT answer put back; resolves with the time it took. */
function open(target: FetchTarget): Promise<{ socket: net.Socket; ms: number }> {
  const t0 = performance.now();
  const { port, via } = target;
  return new Promise((resolve, reject) => {
    const s = net.connect(via ? via.port : port, '127.0.0.1');
    s.setNoDelay(true);
    s.once('error', reject);
    if (!via) {
      s.once('connect', () => {
        s.pause();
        resolve({ socket: s, ms: performance.now() - t0 });
      });
      return;
    }
    s.once('connect', () => s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: Basic ${via.auth}\r\n\r\n`));
    connectAnswered(s).then(() => resolve({ socket: s, ms: performance.now() - t0 }), reject);
  });
}

/** `connects` set-ups to `idle`, then (when `bulk` is given) one read of everything the bulk server sends. */
export async function fetchRun(idle: FetchTarget, connects: number, bulk?: FetchTarget): Promise<FetchResult> {
  const setup: number[] = [];
  for (let i = 0; i < connects; i++) {
    const { socket, ms } = await open(idle);
    setup.push(ms);
    socket.destroy();
  }
  if (!bulk) return { setup };
  const { socket } = await open(bulk);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let bytes = 0;
  socket.on('data', (d: Buffer) => (bytes += d.length));
  socket.resume();
  await new Promise((r) => socket.once('close', r));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (bytes < BULK_BYTES) throw new Error(`only ${bytes} of ${BULK_BYTES} bytes arrived`);
  return { setup, rate: bytes / seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// `node egress-bench-peer.js serve` or `node egress-bench-peer.js fetch '<json: {idle, connects, bulk?}>'`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [role, arg] = process.argv.slice(2);
  if (role === 'serve') await serve();
  else if (role === 'fetch') {
    const { idle, connects, bulk } = JSON.parse(arg ?? '{}') as { idle: FetchTarget; connects: number; bulk?: FetchTarget };
    process.stdout.write(`${JSON.stringify(await fetchRun(idle, connects, bulk))}\n`);
  } else {
    process.stderr.write('usage: egress-bench-peer.js serve | fetch JSON\n');
    process.exitCode = 2;
  }
}
