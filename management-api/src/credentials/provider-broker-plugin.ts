// The provider broker as a fastify plugin: `/v1/providers/<name>/*` for each provider with a base_url, the real key added on the way.
import fp from 'fastify-plugin';
import type { ApiMetrics } from '../api-metrics.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import { brokeredProviders } from '../manifest/rules/helpers/providers.js';
import type { BrokerTiming } from './provider-broker.js';

/** Options of {@link providerBrokerPlugin}. */
export interface ProviderBrokerPluginOptions {
  manifest: NormalizedManifest;
  /** Where each provider's `env_var` is read, at each call. */
  env: Readonly<Record<string, string | undefined>>;
  metrics: Pick<ApiMetrics, 'credentials'>;
  /** Requests per window per caller, as for the other mutating routes. */
  limits: { max: number; timeWindowMs: number };
  /** Timeouts of the broker's calls. */
  brokerTiming?: Partial<BrokerTiming>;
}

/** Agents reach their providers through it with their own token (the gate checks it), never with the provider's key. */
export const providerBrokerPlugin = fp<ProviderBrokerPluginOptions>(
  async (app, options) => {
    const providers = brokeredProviders(options.manifest);
    if (providers.length === 0) return;
    // Loaded only for a box with a brokered provider: the proxying library and its HTTP client are
    // a twentieth of the API's start-up CPU.
    const { registerProviderBroker } = await import('./provider-broker.js');
    await registerProviderBroker(app, {
      providers,
      env: options.env,
      metrics: options.metrics.credentials,
      rateLimit: { max: options.limits.max, timeWindow: options.limits.timeWindowMs },
      ...(options.brokerTiming ? { timing: options.brokerTiming } : {}),
    });
  },
  { name: 'agentbox-provider-broker', dependencies: ['agentbox-request-gate', 'agentbox-rate-limit'] },
);
