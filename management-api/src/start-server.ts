// Starts the metrics listener and the API listener for an already loaded manifest (the mesh is told the API's address by the app's own onListen hook); closes both.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from './app.js';
import { createMetrics } from './api-metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { urlFor, type ListenConfig } from './server-config.js';
import { apiVersion, imageHash } from './version.js';

/** What startServer needs: the app's options minus what it creates itself, plus where to listen. */
export type StartOptions = Omit<AppOptions, 'metrics' | 'metricsUrl'> & {
  listen: ListenConfig;
  /** Runs once both listeners are bound, before the start is announced (so a watcher of the log sees its effect). */
  onBound?: () => Promise<void>;
};

/** A running API. */
export interface RunningServer {
  app: FastifyInstance;
  apiUrl: string;
  metricsUrl: string;
  apiPort: number;
  metricsPort: number;
  apiKeyFile: string;
  /** Stop accepting, finish in-flight requests, close adapters and both listeners. */
  close(): Promise<void>;
}

/** Start both listeners. Throws (with nothing left running) when the app cannot start. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { listen, logger } = options;
  const env = options.env ?? process.env;
  const metrics = createMetrics({ version: apiVersion(), imageHash: imageHash(env), manifestSha256: options.manifestSha256 });
  const metricsServer = await startMetricsServer({ registry: metrics.registry, host: listen.metricsHost, port: listen.metricsPort, logger });
  const metricsUrl = urlFor(listen.metricsHost, metricsServer.port, '/metrics', options.manifest.observability.metrics_bind);
  let app: FastifyInstance;
  try {
    app = await buildApp({ ...options, env, metrics, metricsUrl });
  } catch (err) {
    await metricsServer.close();
    throw err;
  }
  try {
    await app.listen({ host: listen.apiHost, port: listen.apiPort });
  } catch (err) {
    await app.close();
    await metricsServer.close();
    throw err;
  }
  await options
    .onBound?.()
    .catch((err: unknown) => logger.warn({ err, event: 'ApiOnBoundFailed' }, 'a step after the listeners were bound failed; the API runs on'));
  const apiPort = (app.server.address() as AddressInfo).port;
  const apiUrl = urlFor(listen.apiHost, apiPort, '', options.manifest.api.bind);
  // The bound ports are announced even when the manifest asks for warn or error only: with
  // ephemeral ports there is no other way to find the API. `silent` is still respected.
  const announce = logger.isLevelEnabled('info') || logger.level === 'silent' ? logger : logger.child({}, { level: 'info' });
  announce.info(
    {
      event: 'ApiListening',
      apiUrl,
      ...(listen.advertiseUrl ? { advertiseUrl: listen.advertiseUrl } : {}),
      metricsUrl,
      apiPort,
      metricsPort: metricsServer.port,
      apiKeyFile: options.paths.apiKeyFile,
    },
    `management API on ${apiUrl}, metrics on ${metricsUrl}`,
  );
  return {
    app,
    apiUrl,
    metricsUrl,
    apiPort,
    metricsPort: metricsServer.port,
    apiKeyFile: options.paths.apiKeyFile,
    close: async () => {
      await app.close();
      await metricsServer.close();
    },
  };
}
