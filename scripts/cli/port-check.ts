// The ports a box will bind, checked before it starts: a port asked for as 0 (any free port) is
// chosen here, so `agentbox up` can print and record the real one, and a port already taken stops
// the start at once with the one line that names it (box-ports.ts portInUseLine).
import { readFileSync } from 'node:fs';
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

/** The lowest port a chosen one may have: below are the ports services are configured with. */
export const LOWEST_CHOSEN_PORT = 10_000;

/** The first port of the kernel's ephemeral range, which outgoing connections take their local ports from. */
export function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A port free on `host` now for a box to listen on later, not in `avoid`. Chosen below the kernel's
 * ephemeral range: a port there stays free until the box binds it, whereas one from the range
 * (what listening on port 0 gives) can be taken meanwhile as the local port of any outgoing
 * connection on the machine, and the box's programme then fails to listen (EADDRINUSE). Random in
 * LOWEST_CHOSEN_PORT up to the range, so boxes starting together rarely try the same one (the
 * registry's reservations settle the rest); the kernel's choice only where that span is all taken.
 */
export async function quietFreePort(host: string, avoid: (port: number) => boolean = () => false): Promise<number> {
  const high = ephemeralLow();
  for (let attempt = 0; high > LOWEST_CHOSEN_PORT && attempt < 200; attempt++) {
    const port = LOWEST_CHOSEN_PORT + Math.floor(Math.random() * (high - LOWEST_CHOSEN_PORT));
    if (!avoid(port) && (await portFree(host, port))) return port;
  }
  let port = await anyFreePort(host);
  while (avoid(port)) port = await anyFreePort(host);
  return port;
}

/** A port free on `host` now, chosen by the kernel (from its ephemeral range). */
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
  /** Every port the box will bind, with the ones asked for as 0 (or moved) filled in. */
  ports: BoxPort[];
  /** Overrides to pass to the box: the variables of the ports chosen here. */
  chosen: Record<string, string>;
  /** The pinned ports something else holds. */
  taken: BoxPort[];
  /** Ports left at their default that were taken, each moved to a free one (`from` the default). */
  moved: Array<BoxPort & { from: number }>;
}

/**
 * Whether the manifest file itself sets `key` (dotted, e.g. `api.port`) in `raw`, its parsed TOML:
 * a port it sets is pinned; one left out floats (its default, or a free port when that is taken).
 */
export function setsKey(raw: Readonly<Record<string, unknown>>, key: string): boolean {
  let at: unknown = raw;
  for (const part of key.split('.')) {
    if (at === null || typeof at !== 'object' || !(part in at)) return false;
    at = (at as Record<string, unknown>)[part];
  }
  return true;
}

/**
 * Check every port `manifest` (with `env`'s overrides) makes the box bind: one asked for as 0
 * through its variable is chosen now (and that variable set to it); one the manifest file does not
 * set (`pinned` false) and no variable overrides is its default when free, else a free port chosen
 * now, so a second box on the machine starts beside the first; a pinned one must be free. Ports in
 * `reserved` (those of boxes recorded as running or starting) count as taken, free or not yet bound.
 */
export async function checkBoxPorts(
  manifest: NormalizedManifest,
  env: Readonly<Record<string, string | undefined>>,
  pinned: (key: string) => boolean = () => true,
  reserved: ReadonlySet<number> = new Set(),
): Promise<PortCheck> {
  const ports: BoxPort[] = [];
  const chosen: Record<string, string> = {};
  const taken: BoxPort[] = [];
  const moved: PortCheck['moved'] = [];
  // Never one reserved by another box, nor one already chosen here (each is released at once).
  const freePort = (host: string): Promise<number> => quietFreePort(host, (port) => reserved.has(port) || ports.some((q) => q.port === port));
  for (const p of boxPorts(manifest, env)) {
    if (p.port === 0 && p.envVar) {
      const port = await freePort(p.host);
      chosen[p.envVar] = String(port);
      ports.push({ ...p, port });
      continue;
    }
    const free = p.port === 0 || (!reserved.has(p.port) && !ports.some((q) => q.port === p.port) && (await portFree(p.host, p.port)));
    const floats = p.envVar !== undefined && env[p.envVar] === undefined && !pinned(p.key);
    if (!free && floats) {
      const port = await freePort(p.host);
      chosen[p.envVar!] = String(port);
      ports.push({ ...p, port });
      moved.push({ ...p, port, from: p.port });
      continue;
    }
    ports.push(p);
    if (!free) taken.push(p);
  }
  return { ports, chosen, taken, moved };
}
