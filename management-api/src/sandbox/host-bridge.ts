// The box's side of sandbox networking: unix sockets that lead to the API and the egress proxy on loopback.
import { chmod, mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

/**
 * Connections each bridge holds at once, all agents together: each costs the API two descriptors
 * (the unix socket and the TCP one), and the listener it leads to is capped the same way
 * (http/agent-listener.ts), so a flood through the bridge is refused here instead of piling up.
 */
export const BRIDGE_MAX_CONNECTIONS = 256;

/** One unix socket and the loopback TCP port it leads to. */
export interface BridgeSpec {
  socket: string;
  /** The port, or how to read it at each connection (the API's is known once it listens). */
  port: number | (() => number | undefined);
  /**
   * Another programme listens on the socket itself (the egress proxy: bulk transfers must not pass
   * through the API's process); the bridges only make sure its directory exists.
   */
  servedElsewhere?: boolean;
}

/**
 * The unix sockets an agent in its own network namespace reaches through the forwarder inside
 * (the launcher's `--forward`, sandbox/launcher/agentbox-forward.c); each connection is piped to 127.0.0.1:<port>. The API and the
 * egress proxy keep listening on TCP only; the proxy still decides every request it receives.
 */
export class HostBridges {
  readonly #servers: net.Server[] = [];

  constructor(private readonly specs: readonly BridgeSpec[]) {}

  /**
   * Listen on every socket (a stale one from a crashed run is replaced). The sockets are
   * connectable by every user: an agent dropped to an unprivileged uid must reach them (the
   * sandbox makes the directories above searchable), and they lead only to ports every local
   * user can reach anyway.
   */
  async start(): Promise<void> {
    for (const spec of this.specs) {
      await mkdir(path.dirname(spec.socket), { recursive: true });
      if (spec.servedElsewhere) continue;
      await rm(spec.socket, { force: true });
      const server = net.createServer((inside) => pipeTo(inside, typeof spec.port === 'function' ? spec.port() : spec.port));
      server.maxConnections = BRIDGE_MAX_CONNECTIONS;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(spec.socket, () => {
          server.off('error', reject);
          resolve();
        });
      });
      await chmod(spec.socket, 0o666);
      this.#servers.push(server);
    }
  }

  /** Stop listening and remove the sockets; open connections end with their peers. */
  async close(): Promise<void> {
    await Promise.all(this.#servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    await Promise.all(this.specs.filter((s) => !s.servedElsewhere).map((s) => rm(s.socket, { force: true })));
  }
}

function pipeTo(inside: net.Socket, port: number | undefined): void {
  if (port === undefined || port <= 0) {
    inside.destroy();
    return;
  }
  const outside = net.connect(port, '127.0.0.1');
  inside.pipe(outside).pipe(inside);
  inside.on('error', () => outside.destroy());
  outside.on('error', () => inside.destroy());
}
