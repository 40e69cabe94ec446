// The composition root: the management API's fastify instance and the ordered list of the plugins it is made of.
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import type { ErrorBody } from './errors.js';
import type { Logger } from 'pino';
import { appStatePlugin } from './app-state.js';
import { snapshotsPlugin } from './snapshots/snapshots-plugin.js';
import { temporariesPlugin } from './workspace-files/temporaries-plugin.js';
import { approvalsPlugin } from './approvals/approvals-plugin.js';
import { resolverPlugin } from './adapters/resolver-plugin.js';
import type { AdapterRegistry, RegistryOverrides } from './adapters/registry.js';
import type { ResolverTiming } from './adapters/slot-supervisor.js';
import type { ApiMetrics } from './api-metrics.js';
import { apiKeyPlugin } from './auth/api-key-plugin.js';
import { credentialsPlugin } from './credentials/credentials-plugin.js';
import { providerBrokerPlugin } from './credentials/provider-broker-plugin.js';
import type { BrokerTiming } from './credentials/provider-broker.js';
import { dashboardPlugin, dashboardSessionsPlugin, type UiOptions } from './dashboard/register-dashboard.js';
import { egressPlugin } from './egress/egress-plugin.js';
import type { EgressControllerOptions } from './egress/controller.js';
import { agentListenerPlugin } from './http/agent-listener-plugin.js';
import { errorHandlingPlugin } from './http/error-handling-plugin.js';
import { gracefulClosePlugin } from './http/graceful-close.js';
import { openApiPlugin } from './http/openapi-plugin.js';
import { rateLimitPlugin } from './http/rate-limit-plugin.js';
import { requestGatePlugin } from './http/request-gate-plugin.js';
import { requestId } from './http/request-id.js';
import { lazySerializerFactory } from './http/serializer.js';
import { registerAjv2020, schemaErrorText } from './http/validator.js';
import type { NormalizedManifest } from './manifest/load-manifest.js';
import { mcpPlugin } from './mcp/mcp-plugin.js';
import { agentEventsPlugin } from './mesh/agent-events-plugin.js';
import type { AgentEventTiming } from './mesh/agent-events.js';
import type { ClientTiming } from './mesh/client/federation-client.js';
import { federationPlugin } from './mesh/federation-plugin.js';
import { identityPlugin } from './mesh/identity-plugin.js';
import { idleCompactionPlugin } from './observability/idle-compaction-plugin.js';
import { requestTracingPlugin } from './observability/tracing.js';
import { readinessPlugin } from './probes/readiness-plugin.js';
import type { ReadinessTiming } from './probes/readiness-sources.js';
import type { ProgramsReport } from './probes/supervisor-programs.js';
import { routesPlugin } from './routes/routes-plugin.js';
import type { MutationLimits } from './routes/events-routes.js';
import type { RuntimePaths } from './runtime-paths.js';
import { sandboxPlugin } from './sandbox/sandbox-plugin.js';
import { websocketPlugin } from './http/websocket-plugin.js';
import { inputRequestsPlugin } from './input-requests/input-requests-plugin.js';
import { routableUrl } from './http/file-url-path.js';

/**
 * Defaults of mutating routes: 6,000 requests a minute per route and caller (each agent by its
 * token, everyone else by address), 1 MiB bodies. Agents append events often; the limit is there
 * to stop a runaway loop, not ordinary work.
 */
export const DEFAULT_LIMITS: MutationLimits = { max: 6_000, timeWindowMs: 60_000, bodyLimit: 1024 * 1024 };

/** Everything the app is built from; tests inject each of these. */
export interface AppOptions {
  manifest: NormalizedManifest;
  manifestSha256: string;
  paths: RuntimePaths;
  logger: Logger;
  /** The registry the separate metrics listener serves. */
  metrics: ApiMetrics;
  /** Public URL of that listener's /metrics, for /v1/meta. */
  metricsUrl: string;
  /** Environment (image hash, adapter secrets by name). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  clock?: () => Date;
  /** Adapter modules to use instead of the manifest's choice, by slot. */
  overrides?: RegistryOverrides;
  registry?: AdapterRegistry;
  timing?: Partial<ResolverTiming & ReadinessTiming & { shutdownGraceMs: number; idleCompactionMs: number; promptQuietMs: number }>;
  limits?: Partial<MutationLimits>;
  /** Timings of agent event publishing (relay connections, retries, queue bound, agent polling). */
  agentEventTiming?: Partial<AgentEventTiming>;
  /** Timings of the mesh client (mode client): heartbeat time scale, backoff, call deadlines. */
  meshClientTiming?: Partial<ClientTiming>;
  /** Source of supervised programmes for /health. Default: supervisord's socket under the run dir. */
  programs?: () => Promise<ProgramsReport | undefined>;
  /** Timeouts of the provider broker's calls. */
  brokerTiming?: Partial<BrokerTiming>;
  /**
   * The egress proxy's control socket, or false for none. Default: the run dir's socket when
   * `sandbox.enabled` and the API runs under the box's supervisord (which then runs the proxy).
   */
  egress?: { socketPath: string; timing?: EgressControllerOptions['timing'] } | false;
  /** The dashboard: where its built files are, session lifetime, stream sampling. */
  ui?: UiOptions;
  /**
   * Where the API is reached, for the mesh once it listens: `advertiseUrl` when set, else the URL
   * of `apiHost` (default: the bound address) and the bound port (start-server.ts passes its own).
   */
  listen?: { apiHost?: string; advertiseUrl?: string };
}

/** The options every plugin is registered with: {@link AppOptions} with their defaults applied. */
type AppSettings = Omit<AppOptions, 'env' | 'clock' | 'limits'> & {
  env: Readonly<Record<string, string | undefined>>;
  clock: () => Date;
  limits: MutationLimits;
};

/**
 * Build the app from its plugins, in start order: each starts its service, decorates the
 * instance and closes the service in its own `onClose` hook, and names the plugins it needs, so
 * fastify refuses a list in the wrong order. Hooks that attach to each route as it is declared
 * (tracing, the gate, the observer, OpenAPI, rate limiting) come before the routes. Starting reads
 * (or creates) the API key and the identity key, connects the adapters (throws FatalAdapterError
 * when a critical slot cannot connect) and starts readiness tracking; closing the app closes them
 * in reverse order. A service is added with one plugin file beside it and one line here.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const settings: AppSettings = {
    ...options,
    env: options.env ?? process.env,
    clock: options.clock ?? (() => new Date()),
    limits: { ...DEFAULT_LIMITS, ...options.limits },
  };
  const app = createInstance(settings);
  app.register(requestTracingPlugin);
  app.register(apiKeyPlugin, settings);
  app.register(identityPlugin, settings);
  app.register(federationPlugin, settings);
  app.register(agentListenerPlugin);
  app.register(credentialsPlugin, settings);
  app.register(dashboardSessionsPlugin, settings);
  app.register(requestGatePlugin, settings);
  app.register(idleCompactionPlugin, settings);
  app.register(errorHandlingPlugin, settings);
  app.register(openApiPlugin);
  app.register(rateLimitPlugin);
  app.register(websocketPlugin);
  app.register(egressPlugin, settings);
  app.register(sandboxPlugin, settings);
  app.register(resolverPlugin, settings);
  app.register(agentEventsPlugin, settings);
  app.register(approvalsPlugin, settings);
  app.register(inputRequestsPlugin, settings);
  app.register(snapshotsPlugin, settings);
  app.register(temporariesPlugin, settings);
  app.register(readinessPlugin, settings);
  app.register(gracefulClosePlugin, settings);
  app.register(appStatePlugin, settings);
  app.register(routesPlugin, settings);
  app.register(mcpPlugin);
  app.register(dashboardPlugin);
  app.register(providerBrokerPlugin, settings);
  // Load them all now, so a start that fails throws here. fastify does not undo a failed start by
  // itself: one close runs the onClose hooks of the plugins already started, in reverse order.
  try {
    await app.after();
  } catch (err) {
    await app.close();
    throw err;
  }
  return app;
}

/** The bare instance: logging, request ids, body limit, the JSON Schema 2020 validator. */
function createInstance(settings: AppSettings): FastifyInstance {
  const app = Fastify({
    loggerInstance: settings.logger,
    genReqId: requestId,
    requestIdHeader: false,
    // pino's child() has a fast path when given no options; fastify always passes an object.
    childLoggerFactory: (logger, bindings, opts) => (Object.keys(opts).length ? logger.child(bindings, opts) : logger.child(bindings)),
    bodyLimit: settings.limits.bodyLimit,
    // One line per request, written by the request observer.
    logController: new LogController({ disableRequestLogging: true }),
    // Requests arriving while closing get the uniform error shape (http/request-gate.ts) instead of fastify's own 503 body.
    return503OnClosing: false,
    // A plugin's start may wait on a backend for as long as its own deadline allows (the adapters'
    // connect_timeout_sec): fastify's 10 s limit on each plugin would cut it short.
    pluginTimeout: 0,
    // Response serializers compiled on a route's first answer, not at start (http/serializer.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
    // A value failing a pattern is said as what it should be (http/validator.ts).
    schemaErrorFormatter: schemaErrorText,
    // A files route's path that is not UTF-8 (a file named by other bytes) routed by a URL the router can decode, its bytes kept for the route (http/file-url-path.ts).
    rewriteUrl: routableUrl,
    // Any other URL the router cannot decode (`%FF`, `%c0%ae`) is refused before any route: in the uniform shape, not fastify's own.
    frameworkErrors: (error, _request, reply) => {
      const bad = error.code === 'FST_ERR_BAD_URL';
      const body: ErrorBody = bad
        ? {
            error: 'ABX_ERR_BAD_REQUEST',
            message: `the URL is malformed: ${error.message}; percent-escapes must decode as UTF-8 (only a files route's path may hold other bytes, a file's name as the kernel has it: docs/user/files-and-snapshots.md)`,
          }
        : { error: 'ABX_ERR_INTERNAL', message: 'internal error; see the API log for this request id' };
      void (reply as unknown as FastifyReply).code(bad ? 400 : 500).send(body);
    },
  }) as unknown as FastifyInstance;
  registerAjv2020(app);
  return app;
}
