// What closing the app does: a grace period for requests in flight, then adapters and probes are closed.
import type { FastifyInstance } from 'fastify';
import type { AdapterResolver } from '../adapters/resolver.js';
import type { ReadinessSources } from '../probes/readiness-sources.js';

/** How long in-flight requests may run on after SIGTERM before their adapters are closed. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

/**
 * On close, /ready turns 503 at once (so traffic stops arriving) and requests in flight get `graceMs` to finish. After that the adapters are closed, so
 * an operation stuck on a hung backend fails (and is answered) instead of holding the shutdown
 * past the server's deadline; connections still open a moment later are cut. The close ends
 * with the readiness inputs and the adapters closed, and no timer left behind.
 */
export function registerGracefulClose(app: FastifyInstance, parts: { resolver: AdapterResolver; probes: ReadinessSources; graceMs: number }): void {
  const { resolver, probes, graceMs } = parts;
  const timers: NodeJS.Timeout[] = [];
  app.addHook('preClose', async () => {
    probes.readiness.shutDown();
    const drain = setTimeout(() => {
      app.log.warn({ event: 'ShutdownGraceExpired', graceMs }, `requests still running after ${graceMs} ms; closing the adapters`);
      void resolver.close().finally(() => timers.push(setTimeout(() => app.server.closeAllConnections(), 100).unref()));
    }, graceMs);
    timers.push(drain.unref());
  });
  app.addHook('onClose', async () => {
    for (const t of timers) clearTimeout(t);
    probes.close();
    await resolver.close();
  });
}
