// writeTarResponse on a real HTTP server and socket: the body whole and each batch handed back after its write; a pack that fails
// midway cuts the response (never a body that looks whole); a client gone midway, or gone before the pack started, calls the pack off.
import t, { type Test } from 'tap';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { writeTarResponse } from '../../management-api/src/workspace-files/tar-response.js';

const BATCH = 256 * 1024;

/** A server whose one route hands its response to `handle`, and its port. */
async function serve(t: Test, handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<number> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** `count` batches of distinct bytes, then the end (or `failAt`: an error instead of that batch). */
function batches(count: number, failAt?: number): { stream: Readable; made: Buffer[] } {
  const made: Buffer[] = [];
  let i = 0;
  const stream = new Readable({
    read() {
      if (i === failAt) return this.destroy(new Error('the pack failed midway'));
      if (i === count) return this.push(null);
      const b = Buffer.alloc(BATCH, i++ & 0xff);
      made.push(Buffer.from(b));
      this.push(b);
    },
  });
  return { stream, made };
}

t.test('the body is every batch in order, each handed back once its write completed', async (t) => {
  const { stream, made } = batches(40);
  const handedBack: Buffer[] = [];
  const port = await serve(t, (_req, res) => {
    res.writeHead(200);
    writeTarResponse(
      stream,
      res,
      (b) => handedBack.push(b),
      () => t.fail('no failure'),
    );
  });
  const body = await new Promise<Buffer>((resolve, reject) =>
    http.get(`http://127.0.0.1:${port}/`, (res) => {
      const parts: Buffer[] = [];
      // A slow reader: the socket fills, and the writer must wait for it.
      res.on('data', (c: Buffer) => {
        parts.push(c);
        res.pause();
        setTimeout(() => res.resume(), 1);
      });
      res.once('end', () => resolve(Buffer.concat(parts)));
      res.once('error', reject);
    }),
  );
  t.ok(body.equals(Buffer.concat(made)), `${made.length} batches, byte for byte`);
  t.equal(handedBack.length, made.length, 'each handed back');
  t.ok(
    handedBack.every((b, i) => b.equals(made[i]!)),
    'in the order written',
  );
});

t.test('a pack that fails midway cuts the response off', async (t) => {
  const { stream } = batches(40, 5);
  const cuts: string[] = [];
  const port = await serve(t, (_req, res) => {
    res.writeHead(200);
    writeTarResponse(
      stream,
      res,
      () => undefined,
      (err) => cuts.push(err.message),
    );
  });
  const outcome = await new Promise<string>((resolve) =>
    http.get(`http://127.0.0.1:${port}/`, (res) => {
      res.resume();
      res.once('end', () => resolve('ended as if whole'));
      res.once('error', (err) => resolve(`failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      res.once('aborted', () => resolve('failed: aborted'));
    }),
  );
  t.match(outcome, /^failed/, 'the client sees a failed transfer');
  t.same(cuts, ['the pack failed midway'], 'the failure is heard once, for the log');
});

t.test('a client gone midway, or before the pack started, calls the pack off', async (t) => {
  for (const when of ['midway', 'before'] as const) {
    const { stream } = batches(100_000);
    const destroyed = new Promise<void>((resolve) => stream.once('close', resolve));
    const port = await serve(t, (req, res) => {
      const start = () => {
        res.writeHead(200);
        writeTarResponse(
          stream,
          res,
          () => undefined,
          () => undefined,
        );
      };
      // Before: the connection is gone by the time the response is written (its 'close' already past).
      if (when === 'before') req.socket.once('close', () => setTimeout(start, 20));
      else start();
    });
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    if (when === 'midway') await new Promise((resolve) => socket.once('data', resolve));
    else await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    await destroyed;
    t.ok(stream.destroyed, `${when}: the stream is destroyed`);
    t.ok(!stream.readableEnded, `${when}: long before its end`);
  }
});
