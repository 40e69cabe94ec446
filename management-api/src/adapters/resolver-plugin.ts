// The five adapter slots as a fastify plugin: the resolver started with the app (a critical slot that cannot connect stops it) and closed with it, and the audit trail that appends through its events slot; `app.resolver`, `app.audit`.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { ApiMetrics } from '../api-metrics.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import { AuditTrail } from '../observability/audit-trail.js';
import { adapterTracer } from '../observability/tracing.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { apiVersion } from '../version.js';
import type { AdapterRegistry, RegistryOverrides } from './registry.js';
import { AdapterResolver } from './resolver.js';
import type { ResolverTiming } from './slot-supervisor.js';
import { isSlotUsable } from './slot-state.js';
import { AgentInputRelay } from './orchestrator/agent-input-hooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The running adapters of the box. */
    resolver: AdapterResolver;
    /** Who did what, appended through the events slot (observability/audit-trail.ts). */
    audit: AuditTrail;
    /** Prompts on tty agents' quiet terminals and agents' ends, passed on to the input requests once they listen. */
    agentInput: AgentInputRelay;
  }
}

/** Options of {@link resolverPlugin}. */
export interface ResolverPluginOptions {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  logger: Logger;
  metrics: ApiMetrics;
  env: Readonly<Record<string, string | undefined>>;
  clock: () => Date;
  /** `promptQuietMs`: how long a tty agent's output is quiet before its screen is looked at for a prompt (agent-input-hooks.ts). */
  timing?: Partial<ResolverTiming> & { promptQuietMs?: number };
  /** Adapter modules to use instead of the manifest's choice, by slot. */
  overrides?: RegistryOverrides;
  registry?: AdapterRegistry;
}

/**
 * The orchestrator is handed what each agent spawns with: the sandbox, its credentials, its egress
 * proxy credential and the audit trail's hooks around its life. The audit trail (agents' lives,
 * bead transitions, allowlist changes) appends through the events slot, so it is built first and
 * appends once the resolver exists. The input requests, built later, listen to the orchestrator's
 * prompts through the relay decorated here.
 */
export const resolverPlugin = fp<ResolverPluginOptions>(
  async (app, options) => {
    let resolver: AdapterResolver | undefined;
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
    const { egress } = app;
    const agentInput = new AgentInputRelay(options.timing?.promptQuietMs);
    resolver = await AdapterResolver.start({
      sandbox: app.sandbox,
      manifest: options.manifest,
      paths: options.paths,
      logger: options.logger,
      metrics: options.metrics,
      tracer: adapterTracer(apiVersion()),
      env: options.env,
      clock: options.clock,
      agentCredentials: app.agentCredentials,
      agentAudit: audit.agentHooks(),
      agentInput,
      ...(egress ? { egress } : {}),
      ...(options.timing ? { timing: options.timing } : {}),
      ...(options.overrides ? { overrides: options.overrides } : {}),
      ...(options.registry ? { registry: options.registry } : {}),
    });
    const started = resolver;
    app.decorate('resolver', started);
    app.decorate('audit', audit);
    app.decorate('agentInput', agentInput);
    // The agents' exits are the audit trail's last lines: written before the events slot closes.
    app.addHook('onClose', async () => started.close(() => audit.settled()));
  },
  { name: 'agentbox-adapters', dependencies: ['agentbox-sandbox', 'agentbox-egress', 'agentbox-agent-credentials'] },
);
