// Builds the management API's fastify instance: hooks, plugins, adapters, readiness and routes.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import type { Logger } from 'pino';
import './app-state.js';
import { AdapterResolver, type ResolverOptions } from './adapters/resolver.js';
import { AgentSandbox } from './sandbox/agent-sandbox.js';
import { warnWhenUnconfined } from './sandbox/sandbox-report.js';
import { sandboxSettings } from './sandbox/sandbox-settings.js';
import type { AdapterRegistry, RegistryOverrides } from './adapters/registry.js';
import type { ResolverTiming } from './adapters/slot-supervisor.js';
import { ensureApiKey } from './auth/api-key-file.js';
import { loadIdentityKey } from './boot/identity-key.js';
import { startAgentEvents, type AgentEventTiming } from './mesh/agent-events.js';
import type { ClientTiming } from './mesh/client/federation-client.js';
import { startFederation } from './mesh/federation.js';
import { BoxIdentity } from './mesh/identity.js';
import { Nip98Verifier, nip98Allowlist } from './mesh/nip98.js';
import { ApiError } from './errors.js';
import { createAgentListener } from './http/agent-listener.js';
import { registerErrorHandling } from './http/error-handler.js';
import { DEFAULT_SHUTDOWN_GRACE_MS, registerGracefulClose } from './http/graceful-close.js';
import { requestId } from './http/request-id.js';
import { registerRequestGate } from './http/request-gate.js';
import { registerAjv2020 } from './http/validator.js';
import type { NormalizedManifest } from './manifest/load-manifest.js';
import { memoryBytes } from './grammar/size.js';
import { registerRequestObserver } from './observability/request-observer.js';
import { startIdleCompaction } from './observability/idle-compaction.js';
import { AuditTrail } from './observability/audit-trail.js';
import { isSlotUsable } from './adapters/slot-state.js';
import type { ApiMetrics } from './api-metrics.js';
import { adapterTracer, registerRequestTracing } from './observability/tracing.js';
import { DEFAULT_READINESS_TIMING, startReadinessSources, type ReadinessTiming } from './probes/readiness-sources.js';
import { supervisedPrograms, supervisorSocket, type ProgramsReport } from './probes/supervisor-programs.js';
import { registerDocsRoute } from './routes/docs-route.js';
import { registerEventRoutes, type MutationLimits } from './routes/events-routes.js';
import { registerBeadRoutes } from './routes/beads-routes.js';
import { registerPodRoutes } from './routes/pods-routes.js';
import { registerMemoryRoutes } from './routes/memory-routes.js';
import { registerAgentRoutes } from './routes/agents-routes.js';
import { registerMetaRoute } from './routes/meta-route.js';
import { registerMeshHostRoutes } from './routes/mesh-host-routes.js';
import { registerProbeRoutes } from './routes/probe-routes.js';
import { registerEgressRoutes } from './routes/egress-routes.js';
import { startEgress } from './egress/start.js';
import type { EgressControllerOptions } from './egress/controller.js';
import type { RuntimePaths } from './runtime-paths.js';
import { agentCredentials } from './credentials/agent-credentials.js';
import { AgentTokens } from './credentials/agent-tokens.js';
import { registerProviderBroker, type BrokerTiming } from './credentials/provider-broker.js';
import { brokeredProviders } from './manifest/rules/helpers/providers.js';
import { prepareDashboard, type UiOptions } from './dashboard/register-dashboard.js';
import { apiVersion, imageHash } from './version.js';

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
  timing?: Partial<ResolverTiming & ReadinessTiming & { shutdownGraceMs: number; idleCompactionMs: number }>;
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
}

/**
 * Build the app: read (or create) the API key, connect the adapters (throws FatalAdapterError
 * when a critical slot cannot connect), start readiness tracking, register routes. Closing the
 * app closes adapters, watchers and timers.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const env = options.env ?? process.env;
  const clock = options.clock ?? (() => new Date());
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const version = apiVersion();
  const { key } = await ensureApiKey(options.paths.apiKeyFile, options.logger);
  const identity = new BoxIdentity((await loadIdentityKey(options.paths.identityKeyFile, options.logger)).secret);
  const allowed = nip98Allowlist(options.manifest.mesh);
  // Without listed keys NIP-98 is off: a `Nostr` header is then just a wrong API key.
  const nip98 = allowed.size > 0 ? new Nip98Verifier({ allowed, now: () => Math.floor(clock().getTime() / 1000) }) : undefined;
  // Standalone: nothing is started and no connection is ever opened. A host opens its registry here.
  const federation = await startFederation({
    manifest: options.manifest,
    manifestSha256: options.manifestSha256,
    imageHash: imageHash(env),
    paths: options.paths,
    env,
    identity,
    logger: options.logger,
    metrics: options.metrics.federation,
    clock,
    ...(options.meshClientTiming ? { clientTiming: options.meshClientTiming } : {}),
  });

  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: requestId,
    requestIdHeader: false,
    // pino's child() has a fast path when given no options; fastify always passes an object.
    childLoggerFactory: (logger, bindings, opts) => (Object.keys(opts).length ? logger.child(bindings, opts) : logger.child(bindings)),
    bodyLimit: limits.bodyLimit,
    // One line per request, written by the request observer.
    logController: new LogController({ disableRequestLogging: true }),
    // Requests arriving while closing get the uniform error shape (http/request-gate.ts) instead of fastify's own 503 body.
    return503OnClosing: false,
  }) as unknown as FastifyInstance;
  registerAjv2020(app);
  // Tracing first, so requests the gate refuses still get their span.
  await registerRequestTracing(app);
  // Before any route exists: the gate and the observer attach themselves to each route as it is
  // declared (the gate first, ahead of rate limiting).
  // Each agent of the local orchestrator gets a token of its own, never this key (credentials/agent-credentials.ts).
  const agentTokens = new AgentTokens();
  const providers = brokeredProviders(options.manifest);
  // Agents get a listener of their own (http/agent-listener.ts): capped, refusing sign-in and the API
  // key, so no agent can exhaust the API's descriptors or spend the operator's sign-in budget. It
  // listens once the app is ready, before any spawn; its URL is what agents are told.
  const agentListener = createAgentListener(app);
  const credentials = agentCredentials({ tokens: agentTokens, operatorKey: key, apiUrl: () => agentListener.url() ?? 'http://127.0.0.1:0', providers, metrics: options.metrics.credentials });
  const dashboard = prepareDashboard(app, { key, clock, logger: options.logger, metrics: options.metrics.dashboard, ...(nip98 ? { nip98 } : {}), ...(options.ui ? { ui: options.ui } : {}) });
  const gate = registerRequestGate(app, { key, agents: agentTokens, metrics: options.metrics.credentials, sessions: dashboard.sessions, agentListener: agentListener.carried, ...(nip98 ? { nip98 } : {}), ...(federation.host ? { members: federation.host.verifier } : {}) });
  app.addHook('onClose', async () => federation.close());
  const idleCompaction = startIdleCompaction({ logger: options.logger, ...(options.timing?.idleCompactionMs ? { idleMs: options.timing.idleCompactionMs } : {}) });
  app.addHook('onClose', async () => idleCompaction.stop());
  registerErrorHandling(app, { onUnmatched: registerRequestObserver(app, options.metrics, idleCompaction), gate });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Agentbox management API', version, description: 'Probes, metadata and adapter routes of one box. Errors are {error: ABX_ERR_*, message} (docs/errors.md).' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'The box API key (<state>/secrets/api-key)' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(fastifyRateLimit, {
    global: false,
    // The gate runs first, so an agent is known here: each agent gets a budget of its own instead
    // of sharing 127.0.0.1's with the operator and every other agent (a runaway agent must not
    // lock the operator out). Everyone else is counted by listener and address: whatever comes
    // through the agents' listener never counts against the operator's budget (sign-in above all).
    keyGenerator: (request) => (request.agent ? `agent:${request.agent.id}` : agentListener.carried(request) ? `agent-listener:${request.ip}` : request.ip),
    errorResponseBuilder: (_request, context) => new ApiError('ABX_ERR_RATE_LIMITED', `rate limit of ${context.max} requests per ${context.after} exceeded`),
  });

  // Agents may connect to the agents' listener only, never to the operator's port.
  // The proxy's port as the proxy reports it (egress is started below, before any agent can spawn).
  const sandbox = new AgentSandbox(sandboxSettings(options.manifest, options.paths, () => agentListener.port(), () => egress?.port));
  const resolverOptions: ResolverOptions = {
    sandbox,
    manifest: options.manifest,
    paths: options.paths,
    logger: options.logger,
    metrics: options.metrics,
    tracer: adapterTracer(version),
    env,
    clock,
    agentCredentials: credentials,
    ...(options.timing ? { timing: options.timing } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
  };
  const startedAt = clock();
  // Decisions are appended through the events slot, which exists once the resolver does.
  let resolver: AdapterResolver | undefined;
  // The audit trail (agents' lives, bead transitions, allowlist changes) goes the same way.
  const audit = new AuditTrail({
    append: async (events) => {
      if (!resolver) throw new Error('the events slot is not resolved yet');
      return resolver.slot('events').append(events);
    },
    critical: options.manifest.adapters.critical.includes('events'),
    usable: () => resolver?.statuses().some((s) => s.slot === 'events' && isSlotUsable(s.state)) ?? false,
    logger: options.logger,
    failures: options.metrics.auditFailures,
  });
  resolverOptions.agentAudit = audit.agentHooks();
  const egress = startEgress({ manifest: options.manifest, paths: options.paths, env, apiKey: key, logger: options.logger, metrics: options.metrics.egress, setting: options.egress, appendEvent: async (e) => resolver?.slot('events').append([e]) });
  if (egress) resolverOptions.egress = egress;
  resolver = await AdapterResolver.start(resolverOptions).catch(async (err: unknown) => {
    idleCompaction.stop();
    egress?.close();
    await federation.close();
    throw err;
  });
  app.addHook('onClose', async () => egress?.close());
  // Opens no connection unless sovereign_mesh.publish_agent_events is on.
  const agentEvents = startAgentEvents({
    manifest: options.manifest,
    manifestSha256: options.manifestSha256,
    identity,
    listAgents: () => resolver.slot('orchestrator').list(),
    logger: options.logger,
    metrics: options.metrics,
    clock,
    env,
    ...(options.agentEventTiming ? { timing: options.agentEventTiming } : {}),
  });
  app.addHook('onClose', async () => agentEvents.close());
  const probes = await startReadinessSources({
    paths: options.paths,
    resolver,
    logger: options.logger,
    metrics: options.metrics,
    clock,
    timing: { ...DEFAULT_READINESS_TIMING, ...pick(options.timing, ['sealRecheckMs', 'mountCheckMs', 'diskCheckMs']) },
    minFreeDiskBytes: memoryBytes(options.manifest.resources.min_free_disk),
    relays: agentEvents,
    ...(egress ? { egress } : {}),
  }).catch(async (err: unknown) => {
    idleCompaction.stop();
    agentEvents.close();
    egress?.close();
    await resolver.close();
    await federation.close();
    throw err;
  });
  federation.bind({ resolver, probes });
  registerGracefulClose(app, { resolver, probes, graceMs: options.timing?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS });

  app.decorate('agentbox', {
    manifest: options.manifest,
    manifestSha256: options.manifestSha256,
    paths: options.paths,
    version,
    imageHash: imageHash(env),
    metricsUrl: options.metricsUrl,
    identity,
    agentEvents,
    federation,
    resolver,
    probes,
    clock,
    startedAt,
    programs: options.programs ?? (() => supervisedPrograms(supervisorSocket(env, options.paths))),
    idleCompaction,
    sandbox,
    egress,
    agentListener,
    audit,
  });
  warnWhenUnconfined(sandbox, options.logger);

  registerProbeRoutes(app);
  registerMetaRoute(app);
  if (federation.host) registerMeshHostRoutes(app, federation.host);
  registerBeadRoutes(app, limits);
  registerPodRoutes(app, limits);
  registerMemoryRoutes(app, limits);
  registerEventRoutes(app, limits);
  registerAgentRoutes(app, limits);
  registerEgressRoutes(app, limits);
  registerDocsRoute(app);
  await dashboard.register();
  await registerProviderBroker(app, { providers, env, metrics: options.metrics.credentials, rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs }, ...(options.brokerTiming ? { timing: options.brokerTiming } : {}) });
  return app;
}

function pick<T extends object, K extends keyof T>(from: T | undefined, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from?.[k] !== undefined) out[k] = from[k];
  return out;
}
