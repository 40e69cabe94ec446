// What closing the app does first, as a fastify plugin: /ready turns 503, then a grace period for requests in flight before the adapters are closed.
import fp from 'fastify-plugin';

/** How long in-flight requests may run on after SIGTERM before their adapters are closed. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

/** Options of {@link gracefulClosePlugin}. */
export interface GracefulCloseOptions {
  timing?: { shutdownGraceMs?: number };
}

/**
 * On close, /ready turns 503 at once (so traffic stops arriving) and requests in flight get the
 * grace period to finish. After that the adapters are closed, so an operation stuck on a hung
 * backend fails (and is answered) instead of holding the shutdown past the server's deadline;
 * connections still open a moment later are cut. The readiness inputs and the adapters close in
 * their own plugins' `onClose` hooks; this one leaves no timer behind.
 */
export const gracefulClosePlugin = fp<GracefulCloseOptions>(
  async (app, options) => {
    const graceMs = options.timing?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    const { resolver, probes } = app;
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
    });
  },
  { name: 'agentbox-graceful-close', dependencies: ['agentbox-adapters', 'agentbox-readiness'] },
);
