// Metrics of agent tokens and the provider broker, registered with the API's other metrics (bounded labels only).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The credential metrics. Labels are provider names from the manifest, route templates and outcomes: never an agent id. */
export interface CredentialMetrics {
  /** `agentbox_agent_tokens`: agent tokens currently live. */
  liveTokens: Gauge;
  /** `agentbox_agent_scope_refusals_total`: requests with an agent token refused as outside its scope, by route template. */
  scopeRefusals: Counter<'route'>;
  /** `agentbox_provider_requests_total`: brokered calls by provider and outcome (`2xx` … `5xx`, `unreachable`, `timeout`, `no-key`, `error`). */
  providerRequests: Counter<'provider' | 'outcome'>;
  /** `agentbox_provider_response_seconds`: time until the provider's response headers, by provider. */
  providerLatency: Histogram<'provider'>;
}

// Model providers answer in tens of milliseconds (a cached reply) to minutes (a long completion).
const buckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** Create the credential metrics in `registry`. */
export function createCredentialMetrics(registry: Registry): CredentialMetrics {
  const registers = [registry];
  return {
    liveTokens: new Gauge({
      name: 'agentbox_agent_tokens',
      help: 'Agent API tokens currently live (one per running agent of the local orchestrator).',
      registers,
    }),
    scopeRefusals: new Counter({
      name: 'agentbox_agent_scope_refusals_total',
      help: 'Requests carrying an agent token refused because the route or resource is outside the agent scope, by route template.',
      labelNames: ['route'] as const,
      registers,
    }),
    providerRequests: new Counter({
      name: 'agentbox_provider_requests_total',
      help: 'Calls forwarded by the provider broker, by provider and outcome: the status class (2xx, 3xx, 4xx, 5xx), or unreachable, timeout, no-key, refused (a path outside base_url), error.',
      labelNames: ['provider', 'outcome'] as const,
      registers,
    }),
    providerLatency: new Histogram({
      name: 'agentbox_provider_response_seconds',
      help: 'Time from a brokered call until the provider response headers, by provider.',
      labelNames: ['provider'] as const,
      buckets,
      registers,
    }),
  };
}
