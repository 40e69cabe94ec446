// What an agent is given at spawn instead of secrets: its own token (also under each provider's <NAME>_API_KEY), the API's address and the broker's provider addresses.
import { AdapterInputError } from '../adapter-errors.js';
import type { BrokeredProvider } from '../manifest/rules/helpers/providers.js';
import type { AgentCredentialHooks } from './hooks.js';
import type { CredentialMetrics } from './metrics.js';
import type { AgentTokens } from './agent-tokens.js';

/** Reserved variable holding the agent's API token. */
export const TOKEN_VARIABLE = 'AGENTBOX_TOKEN';
/** Reserved variable holding the management API's base URL as seen from the agent. */
export const API_URL_VARIABLE = 'AGENTBOX_API_URL';
/** Where the broker answers for provider `name`, under the API's base URL. */
export const brokerPath = (name: string): string => `/v1/providers/${name}`;

export type { AgentCredentialHooks } from './hooks.js';

/** What {@link agentCredentials} is built from. */
export interface AgentCredentialOptions {
  tokens: AgentTokens;
  /** The operator's API key, only to refuse spawn requests that would hand it to an agent. */
  operatorKey: string;
  /** The API's base URL for agents (the agents' listener, http/agent-listener.ts), read at each spawn: the port is known only once listening. */
  apiUrl: () => string;
  providers: readonly BrokeredProvider[];
  metrics?: CredentialMetrics;
}

/** The credential hooks of one API process. */
export function agentCredentials(options: AgentCredentialOptions): AgentCredentialHooks {
  const { tokens, operatorKey, metrics } = options;
  const carriesKey = (text: string | undefined): boolean => text !== undefined && operatorKey !== '' && text.includes(operatorKey);
  return {
    check(request) {
      // The key would sit in /proc/<pid>/cmdline or environ, readable by the agent and anything it starts.
      if (carriesKey(request.command) || request.args.some(carriesKey))
        throw new AdapterInputError('the command or args carry the box API key; an agent never receives it (it gets its own token in AGENTBOX_TOKEN)');
      if (Object.values(request.env ?? {}).some(carriesKey))
        throw new AdapterInputError('an env value carries the box API key; an agent never receives it (it gets its own token in AGENTBOX_TOKEN)');
    },
    issue(agent) {
      const token = tokens.issue(agent);
      metrics?.liveTokens.set(tokens.size);
      const base = options.apiUrl();
      const env: Record<string, string> = { [TOKEN_VARIABLE]: token, [API_URL_VARIABLE]: base };
      for (const p of options.providers) {
        if (agent.providers && !agent.providers.includes(p.name)) continue;
        env[p.variable] = base + brokerPath(p.name);
        // The agent's own token, where SDKs look for the provider's key: the broker takes it in its place.
        env[p.keyVariable] = token;
      }
      return env;
    },
    revoke(id) {
      tokens.revoke(id);
      metrics?.liveTokens.set(tokens.size);
    },
  };
}
