// Free TCP ports on 127.0.0.1 for test servers and boxes, never the same one twice in a process.
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
