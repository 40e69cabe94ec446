// The request gate as a fastify plugin: attached to every route declared after it (API key, agent tokens, sessions, NIP-98); `app.requestGate`.
import fp from 'fastify-plugin';
import type { ApiMetrics } from '../api-metrics.js';
import { registerRequestGate, type Gate } from './request-gate.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The gate, for the not-found handler: unknown URLs need the key like any non-probe route. */
    requestGate: Gate;
  }
}

/** Options of {@link requestGatePlugin}. */
export interface RequestGatePluginOptions {
  metrics: Pick<ApiMetrics, 'credentials'>;
}

/**
 * Before any route exists: the gate attaches itself to each route as it is declared (ahead of
 * rate limiting, registered after it). A mesh host also admits its members' signed requests.
 */
export const requestGatePlugin = fp<RequestGatePluginOptions>(
  async (app, options) => {
    const { nip98, federation } = app;
    const gate = registerRequestGate(app, {
      key: app.apiKey,
      agents: app.agentTokens,
      metrics: options.metrics.credentials,
      sessions: app.dashboard.sessions,
      agentListener: app.agentListener.carried,
      ...(nip98 ? { nip98 } : {}),
      ...(federation.host ? { members: federation.host.verifier } : {}),
    });
    app.decorate('requestGate', gate);
  },
  {
    name: 'agentbox-request-gate',
    dependencies: [
      'agentbox-api-key',
      'agentbox-identity',
      'agentbox-federation',
      'agentbox-agent-listener',
      'agentbox-agent-credentials',
      'agentbox-dashboard-sessions',
    ],
  },
);
