// The box's part in a mesh as a fastify plugin: started with the app (a host opens its registry), told the API's address once it listens, closed with the app.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ApiMetrics } from '../api-metrics.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { urlFor } from '../server-config.js';
import { imageHash } from '../version.js';
import type { ClientTiming } from './client/federation-client.js';
import { startFederation, type Federation } from './federation.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The box's part in a mesh (mesh.mode): nothing, a client registered with a host, or a host. */
    federation: Federation;
  }
}

/** Options of {@link federationPlugin}. */
export interface FederationPluginOptions {
  manifest: NormalizedManifest;
  manifestSha256: string;
  paths: RuntimePaths;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  metrics: Pick<ApiMetrics, 'federation'>;
  clock: () => Date;
  meshClientTiming?: Partial<ClientTiming>;
  /** Where the API is reached: the mesh is given `advertiseUrl` when set, else the URL of `apiHost` (else of the bound address). */
  listen?: { apiHost?: string; advertiseUrl?: string };
}

/**
 * Standalone: nothing is started and no connection is ever opened. A host opens its registry at
 * start (one that cannot be opened stops the API from starting); a client is built at start and
 * registers from the `onListen` hook, the federation's last phase. Its reports read the adapters
 * and readiness of this app, which exist by then: fastify runs `onListen` only after every plugin
 * has started.
 */
export const federationPlugin = fp<FederationPluginOptions>(
  async (app, options) => {
    const federation = await startFederation({
      manifest: options.manifest,
      manifestSha256: options.manifestSha256,
      imageHash: imageHash(options.env),
      paths: options.paths,
      env: options.env,
      identity: app.identity,
      logger: options.logger,
      metrics: options.metrics.federation,
      clock: options.clock,
      reportFrom: () => ({ resolver: app.resolver, probes: app.probes }),
      ...(options.meshClientTiming ? { clientTiming: options.meshClientTiming } : {}),
    });
    app.decorate('federation', federation);
    app.addHook('onClose', async () => federation.close());
    app.addHook('onListen', async () => {
      const url = advertisedUrl(app, options);
      if (url) federation.listening(url);
    });
  },
  { name: 'agentbox-federation', dependencies: ['agentbox-identity'] },
);

/**
 * The address the mesh is given: the advertised one when set (the listen address may be loopback
 * or a wildcard), else the URL of the listen host and bound port; undefined on a unix socket.
 */
function advertisedUrl(app: FastifyInstance, options: FederationPluginOptions): string | undefined {
  const advertised = options.listen?.advertiseUrl;
  if (advertised !== undefined) return advertised;
  const address = app.server.address();
  if (!address || typeof address === 'string') return undefined;
  return urlFor(options.listen?.apiHost ?? address.address, address.port, '', options.manifest.api.bind);
}
