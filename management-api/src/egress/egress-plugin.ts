// The egress proxy's controller as a fastify plugin: started with the app when the box runs a proxy, closed with it; `app.egress`.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { ApiMetrics } from '../api-metrics.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import type { EgressController, EgressControllerOptions } from './controller.js';
import { startEgress } from './start.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The egress proxy's controller; undefined when the box runs no proxy. */
    egress: EgressController | undefined;
  }
}

/** Options of {@link egressPlugin}. */
export interface EgressPluginOptions {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  metrics: Pick<ApiMetrics, 'egress'>;
  /** The proxy's control socket, or false for none; undefined decides from the manifest and the environment (egress/start.ts). */
  egress?: { socketPath: string; timing?: EgressControllerOptions['timing'] } | false;
}

/**
 * Started before the adapters (the orchestrator hands each agent its proxy credential), so before
 * any agent can spawn. Its decisions are appended through the events slot once the adapters have
 * started (`app.resolver`); before that there is none to append to and none is made for an agent.
 */
export const egressPlugin = fp<EgressPluginOptions>(
  async (app, options) => {
    const egress = startEgress({
      manifest: options.manifest,
      paths: options.paths,
      env: options.env,
      apiKey: app.apiKey,
      logger: options.logger,
      metrics: options.metrics.egress,
      setting: options.egress,
      appendEvent: async (event) => (app.hasDecorator('resolver') ? app.resolver.slot('events').append([event]) : undefined),
      // The approvals queue starts after this plugin (it records through the adapters): asked for at each ask.
      approver: () => (app.hasDecorator('approvals') ? app.approvals.queue : undefined),
    });
    app.decorate('egress', egress);
    app.addHook('onClose', async () => egress?.close());
  },
  { name: 'agentbox-egress', dependencies: ['agentbox-api-key'] },
);
