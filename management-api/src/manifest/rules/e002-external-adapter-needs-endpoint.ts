// E002: an external adapter without an endpoint cannot connect; the box would start degraded (or not at all).
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { HTTP_SLOTS, slotImpls } from './helpers/slots.js';

/** Every external adapter needs its endpoint under `[integrations.<slot>]`. */
export const externalAdapterNeedsEndpoint: Rule = {
  id: 'E002',
  alias: 'external-adapter-needs-endpoint',
  severity: 'error',
  summary: 'an external adapter needs its endpoint in [integrations.<slot>]',
  check(m) {
    const out: RuleFinding[] = [];
    for (const slot of HTTP_SLOTS) {
      if (m.adapters[slot] === slotImpls[slot].external && m.integrations[slot].url === '') {
        out.push(
          finding(
            ['integrations', slot, 'url'],
            `adapters.${slot} = "${m.adapters[slot]}" but integrations.${slot}.url is empty`,
            `add [integrations.${slot}] url = "https://<service>" (and token_env = "<VARIABLE_NAME>" if it needs a bearer token)`,
          ),
        );
      }
    }
    const mem = m.integrations.memory;
    if (m.adapters.memory === slotImpls.memory.external && mem.connection_env === '' && mem.connection_file === '') {
      out.push(
        finding(
          ['integrations', 'memory', 'connection_env'],
          `adapters.memory = "${slotImpls.memory.external}" but neither integrations.memory.connection_env nor connection_file is set`,
          'add [integrations.memory] connection_env = "AGENTBOX_PG_URL" (the variable holding the connection string) or connection_file = "/run/secrets/pg-url"',
        ),
      );
    }
    if (m.adapters.orchestrator === slotImpls.orchestrator.external && m.integrations.orchestrator.command === '') {
      out.push(
        finding(
          ['integrations', 'orchestrator', 'command'],
          `adapters.orchestrator = "${slotImpls.orchestrator.external}" but integrations.orchestrator.command is empty`,
          'add [integrations.orchestrator] command = "/absolute/path/to/orchestrator" (spoken to with JSON-RPC over stdio)',
        ),
      );
    }
    return out;
  },
};
