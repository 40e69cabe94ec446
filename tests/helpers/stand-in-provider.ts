// A model provider stand-in on 127.0.0.1 that records what arrives: echo, a paced SSE stream, and a counting upload.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request as the stand-in received it. */
export interface Arrival {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** Bytes of the body. */
  bytes: number;
  body: string;
}

/** A running stand-in. `release()` lets the stream route send its next event. */
export interface StandInProvider {
  url: string;
  port: number;
  arrivals: Arrival[];
  /** Events the stream route has written so far. */
  sent: () => number;
  release: () => void;
  close: () => Promise<void>;
}

/**
 * Routes: `GET|POST …/stream` answers `text/event-stream` and writes one event per `release()`
 * (three in all), so a test can prove each event reached the client before the next was written;
 * `POST …/upload` counts the body and answers with the count as soon as it ends; `…/hang` never
 * answers (and is not recorded); anything else
 * echoes the request (method, url, headers, body) as JSON. With `tls`, it serves HTTPS. It listens
 * on `port` when given (inside a container, where the manifest names the port before it starts),
 * else on any free port.
 */
export async function startStandInProvider(options: { tls?: { key: string; cert: string }; port?: number } = {}): Promise<StandInProvider> {
  const arrivals: Arrival[] = [];
  let sent = 0;
  const waiting: Array<() => void> = [];
  let credits = 0;
  const nextRelease = () =>
    new Promise<void>((resolve) => {
      if (credits > 0) {
        credits--;
        resolve();
      } else waiting.push(resolve);
    });
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const keep = !req.url?.includes('/upload');
    req.on('data', (c: Buffer) => {
      bytes += c.length;
      if (keep) chunks.push(c);
    });
    req.on('end', () => {
      // Answers nothing, ever: for the broker's headers timeout.
      if (req.url?.includes('/hang')) return;
      const arrival: Arrival = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bytes, body: Buffer.concat(chunks).toString('utf8') };
      arrivals.push(arrival);
      if (req.url?.includes('/stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.flushHeaders();
        void (async () => {
          for (let i = 1; i <= 3; i++) {
            await nextRelease();
            res.write(`data: {"n":${i}}\n\n`);
            sent = i;
          }
          res.end();
        })();
        return;
      }
      // x-hop is hop-by-hop by being listed in Connection: a proxy must not pass it on.
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive, x-hop', 'x-hop': 'provider-only', 'x-provider': 'stand-in' });
      res.end(JSON.stringify(req.url?.includes('/upload') ? { bytes } : arrival));
    });
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    arrivals,
    sent: () => sent,
    release: () => {
      const next = waiting.shift();
      if (next) next();
      else credits++;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 127.0.0.1 port with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
