// Signed agent events as a fastify plugin: publishing started with the app (agent events with sovereign_mesh.publish_agent_events; approval requests wherever relays are configured), closed with it; `app.agentEvents`.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { ApiMetrics } from '../api-metrics.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import { startAgentEvents, type AgentEvents, type AgentEventTiming } from './agent-events.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Signed agent events and approval requests (a no-op without sovereign_mesh and relays). */
    agentEvents: AgentEvents;
  }
}

/** Options of {@link agentEventsPlugin}. */
export interface AgentEventsPluginOptions {
  manifest: NormalizedManifest;
  manifestSha256: string;
  logger: Logger;
  metrics: ApiMetrics;
  clock: () => Date;
  env: Readonly<Record<string, string | undefined>>;
  /** Timings of agent event publishing (relay connections, retries, queue bound, agent polling). */
  agentEventTiming?: Partial<AgentEventTiming>;
}

/** Signed with the box's identity; the agents are listed from the orchestrator slot. */
export const agentEventsPlugin = fp<AgentEventsPluginOptions>(
  async (app, options) => {
    const { resolver } = app;
    const agentEvents = startAgentEvents({
      manifest: options.manifest,
      manifestSha256: options.manifestSha256,
      identity: app.identity,
      listAgents: () => resolver.slot('orchestrator').list(),
      logger: options.logger,
      metrics: options.metrics,
      clock: options.clock,
      env: options.env,
      ...(options.agentEventTiming ? { timing: options.agentEventTiming } : {}),
    });
    app.decorate('agentEvents', agentEvents);
    app.addHook('onClose', async () => agentEvents.close());
  },
  { name: 'agentbox-agent-events', dependencies: ['agentbox-identity', 'agentbox-adapters'] },
);
