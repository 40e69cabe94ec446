// E001: an external adapter reaches a shared backend, which only a federated box (mesh client or host) has.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { externalSlots, slotImpls } from './helpers/slots.js';

/** External adapters need `mesh.mode` client or host. */
export const externalAdapterNeedsFederation: Rule = {
  id: 'E001',
  alias: 'external-adapter-needs-federation',
  severity: 'error',
  summary: 'an external adapter needs mesh.mode = "client" or "host"',
  check(m) {
    if (m.mesh.mode !== 'standalone') return [];
    return externalSlots(m).map((slot) =>
      finding(
        ['adapters', slot],
        `adapters.${slot} = "${m.adapters[slot]}" uses a shared backend, but mesh.mode is "standalone"`,
        `set [mesh] mode = "client" with host_url = "https://<mesh-host>" (or mode = "host"), or keep the box standalone with adapters.${slot} = "${slotImpls[slot].local}"`,
      ),
    );
  },
};
