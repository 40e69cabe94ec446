// Free TCP ports on 127.0.0.1 for test servers and boxes, never the same one twice in a process.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports this process has handed out: the kernel may give a just-closed port again at once. */
const handedOut = new Set<number>();

/**
 * A TCP port that was free a moment ago on 127.0.0.1, never one this process handed out before:
 * callers take several in a row (api, metrics, …) and two equal ones would collide.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** Whether 127.0.0.1:`port` can be listened on now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The first port of the kernel's ephemeral range, which outgoing connections take their local ports from. */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A free port below the ephemeral range, for a box in a container: it listens in a network
 * namespace of its own, where Docker's embedded DNS resolver already listens on 127.0.0.11 at
 * ports the kernel picked from the ephemeral range (what {@link freePort} gets too). A box given
 * one of those fails to listen with EADDRINUSE however often it restarts. Random in 10000 up to
 * the range, never one this process handed out, free on the host when returned.
 */
export async function freePortBelowEphemeral(): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port found between 10000 and ${low}`);
}
