// The tunnel relay with real sockets on 127.0.0.1: every byte in order under back-pressure, bounded buffering, half-closes, both relays.
import t, { type Test } from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { once } from 'node:events';
import { openTunnel, TUNNEL_READ_MAX, tunnelRelayFrom, type TunnelRelay } from '../../../management-api/src/egress/tunnel.js';

/** Bytes the upstream sends: random, so a reused buffer overwritten too early shows as a wrong digest. */
const PAYLOAD = randomBytes(24 * 1024 * 1024);
const digest = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * An upstream server running `serve` on each connection and a front listener whose accepted
 * sockets are tunnelled to it (what the proxy does after admitting a CONNECT); resolves to the
 * agent's end of one tunnel and the proxy side of it.
 */
async function tunnel(
  t: Test,
  relay: TunnelRelay,
  serve: (s: net.Socket) => void,
  head = Buffer.alloc(0),
): Promise<{ agent: net.Socket; proxySide: net.Socket }> {
  const upstream = net.createServer((s) => {
    s.on('error', () => undefined);
    serve(s);
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const accepted: net.Socket[] = [];
  // Half-open like the proxy's http server, so an agent's end travels on alone.
  const front = net.createServer({ allowHalfOpen: true }, (s) => {
    accepted.push(s);
    s.on('error', () => undefined);
    openTunnel(s, '127.0.0.1', (upstream.address() as net.AddressInfo).port, head, { onConnect: () => undefined, onConnectFailed: () => s.destroy() }, relay);
  });
  front.listen(0, '127.0.0.1');
  await once(front, 'listening');
  const agent = net.connect((front.address() as net.AddressInfo).port, '127.0.0.1');
  agent.on('error', () => undefined);
  await once(front, 'connection');
  t.teardown(() => {
    agent.destroy();
    front.close();
    upstream.close();
  });
  return { agent, proxySide: accepted[0]! };
}

function readAll(s: net.Socket): Promise<Buffer> {
  const parts: Buffer[] = [];
  s.on('data', (d: Buffer) => parts.push(d));
  return new Promise((resolve) => s.once('end', () => resolve(Buffer.concat(parts))));
}

for (const relay of ['buffer', 'pipe'] as const) {
  t.test(`${relay} relay: a slow reader gets every byte in order, and the proxy holds at most one read's worth`, async (t) => {
    const { agent, proxySide } = await tunnel(t, relay, (s) => s.end(PAYLOAD));
    let most = 0;
    const parts: Buffer[] = [];
    // Read in bursts with pauses, so the proxy's writes to the agent must wait again and again.
    agent.on('data', (d: Buffer) => {
      parts.push(d);
      most = Math.max(most, proxySide.writableLength);
      if (parts.length % 16 === 0) {
        agent.pause();
        setTimeout(() => agent.resume(), 2);
      }
    });
    await once(agent, 'end');
    const got = Buffer.concat(parts);
    t.equal(got.length, PAYLOAD.length, 'every byte arrived');
    t.equal(digest(got), digest(PAYLOAD), 'in order, none overwritten');
    // A relay that went on reading while its writes waited would queue the whole payload here.
    t.ok(most <= 2 * Math.max(TUNNEL_READ_MAX, 64 * 1024), `bytes waiting in the proxy stayed bounded (most ${most})`);
  });

  t.test(`${relay} relay: the bytes after the CONNECT header go first, and a half-close passes both ways`, async (t) => {
    const { agent } = await tunnel(
      t,
      relay,
      (s) => {
        const seen: Buffer[] = [];
        s.on('data', (d: Buffer) => seen.push(d));
        // Answers only once the agent has finished sending: its end must reach the server.
        s.once('end', () => s.end(`got ${Buffer.concat(seen).toString()}`));
      },
      Buffer.from('head-'),
    );
    const reply = readAll(agent);
    agent.end('body');
    t.equal((await reply).toString(), 'got head-body');
  });
}

t.test('an upstream that refuses the connection is reported, not relayed', async (t) => {
  const closed = net.createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const [a, b] = await pair();
  t.teardown(() => {
    a.destroy();
    b.destroy();
  });
  const failed = new Promise<string>((resolve) =>
    openTunnel(a, '127.0.0.1', port, Buffer.alloc(0), { onConnect: () => resolve('connected'), onConnectFailed: () => resolve('failed') }),
  );
  t.equal(await failed, 'failed');
});

t.test('AGENTBOX_EGRESS_RELAY chooses the relay and names itself when wrong', async (t) => {
  t.equal(tunnelRelayFrom({}), 'buffer');
  t.equal(tunnelRelayFrom({ AGENTBOX_EGRESS_RELAY: 'pipe' }), 'pipe');
  t.throws(() => tunnelRelayFrom({ AGENTBOX_EGRESS_RELAY: 'splice' }), { message: 'AGENTBOX_EGRESS_RELAY must be "buffer" or "pipe", not "splice"' });
});

/** Two connected sockets on 127.0.0.1. */
async function pair(): Promise<[net.Socket, net.Socket]> {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const client = net.connect((srv.address() as net.AddressInfo).port, '127.0.0.1');
  const [server] = (await once(srv, 'connection')) as [net.Socket];
  srv.close();
  return [client, server];
}
