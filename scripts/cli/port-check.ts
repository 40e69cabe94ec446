// The ports a box will bind, checked before it starts: a port asked for as 0 (any free port) is
// chosen here, so `agentbox up` can print and record the real one, and a port already taken stops
// the start at once with the one line that names it (box-ports.ts portInUseLine).
import { createServer } from 'node:net';
import type { NormalizedManifest } from '../../management-api/src/manifest/load-manifest.js';
import { boxPorts, type BoxPort } from '../../management-api/src/box-ports.js';

/** Whether `port` on `host` can be bound right now. */
export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port free on `host` now, chosen by the kernel. */
export function anyFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The outcome of {@link checkBoxPorts}. */
export interface PortCheck {
  /** Every port the box will bind, with the ones asked for as 0 filled in. */
  ports: BoxPort[];
  /** Overrides to pass to the box: the variables of the ports chosen here. */
  chosen: Record<string, string>;
  /** The ports something else holds. */
  taken: BoxPort[];
}

/**
 * Check every port `manifest` (with `env`'s overrides) makes the box bind: one asked for as 0
 * through its variable is chosen now (and that variable set to it), the others must be free.
 */
export async function checkBoxPorts(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>>): Promise<PortCheck> {
  const ports: BoxPort[] = [];
  const chosen: Record<string, string> = {};
  const taken: BoxPort[] = [];
  for (const p of boxPorts(manifest, env)) {
    if (p.port === 0 && p.envVar) {
      // Released at once: the kernel may hand the same port out again, so never twice here.
      let port = await anyFreePort(p.host);
      while (ports.some((q) => q.port === port)) port = await anyFreePort(p.host);
      chosen[p.envVar] = String(port);
      ports.push({ ...p, port });
      continue;
    }
    ports.push(p);
    if (p.port !== 0 && !(await portFree(p.host, p.port))) taken.push(p);
  }
  return { ports, chosen, taken };
}
