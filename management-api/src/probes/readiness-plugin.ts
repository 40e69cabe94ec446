// Readiness as a fastify plugin: the seal watcher, mount and disk checks started with the app (after the adapters, whose states they weigh) and closed with it; `app.probes`.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { ApiMetrics } from '../api-metrics.js';
import { memoryBytes } from '../grammar/size.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { DEFAULT_READINESS_TIMING, startReadinessSources, type ReadinessSources, type ReadinessTiming } from './readiness-sources.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The readiness model with its inputs running. */
    probes: ReadinessSources;
  }
}

/** Options of {@link readinessPlugin}. */
export interface ReadinessPluginOptions {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  logger: Logger;
  metrics: ApiMetrics;
  clock: () => Date;
  timing?: Partial<ReadinessTiming>;
}

/** Readiness weighs the slots, the relays agent events go to and the egress proxy, besides the seal and the mounts. */
export const readinessPlugin = fp<ReadinessPluginOptions>(
  async (app, options) => {
    const { egress } = app;
    const probes = await startReadinessSources({
      paths: options.paths,
      resolver: app.resolver,
      logger: options.logger,
      metrics: options.metrics,
      clock: options.clock,
      timing: { ...DEFAULT_READINESS_TIMING, ...readinessTiming(options.timing) },
      minFreeDiskBytes: memoryBytes(options.manifest.resources.min_free_disk),
      relays: app.agentEvents,
      ...(egress ? { egress } : {}),
    });
    app.decorate('probes', probes);
    app.addHook('onClose', async () => probes.close());
  },
  { name: 'agentbox-readiness', dependencies: ['agentbox-adapters', 'agentbox-agent-events', 'agentbox-egress'] },
);

/** The readiness timings among the app's (which hold the resolver's too), those set only. */
function readinessTiming(timing: Partial<ReadinessTiming> | undefined): Partial<ReadinessTiming> {
  const out: Partial<ReadinessTiming> = {};
  for (const key of ['sealRecheckMs', 'mountCheckMs', 'diskCheckMs'] as const) if (timing?.[key] !== undefined) out[key] = timing[key];
  return out;
}
