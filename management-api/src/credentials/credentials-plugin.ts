// What agents hold instead of secrets, as a fastify plugin: the per-agent tokens and the credential hooks the orchestrator spawns with.
import fp from 'fastify-plugin';
import type { ApiMetrics } from '../api-metrics.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import { brokeredProviders } from '../manifest/rules/helpers/providers.js';
import { agentCredentials, type AgentCredentialHooks } from './agent-credentials.js';
import { AgentTokens } from './agent-tokens.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Live agent tokens (digests only): the request gate checks them. */
    agentTokens: AgentTokens;
    /** The variables each agent is given at spawn, its token issued then and revoked at its exit. */
    agentCredentials: AgentCredentialHooks;
  }
}

/** Options of {@link credentialsPlugin}. */
export interface CredentialsPluginOptions {
  manifest: NormalizedManifest;
  metrics: Pick<ApiMetrics, 'credentials'>;
}

/** Each agent of the local orchestrator gets a token of its own, never the API key; its API URL is the agents' listener's. */
export const credentialsPlugin = fp<CredentialsPluginOptions>(
  async (app, options) => {
    const tokens = new AgentTokens();
    const { agentListener } = app;
    app.decorate('agentTokens', tokens);
    app.decorate(
      'agentCredentials',
      agentCredentials({
        tokens,
        operatorKey: app.apiKey,
        apiUrl: () => agentListener.url() ?? 'http://127.0.0.1:0',
        providers: brokeredProviders(options.manifest),
        metrics: options.metrics.credentials,
      }),
    );
  },
  { name: 'agentbox-agent-credentials', dependencies: ['agentbox-api-key', 'agentbox-agent-listener'] },
);
