// W009: allowed_pubkeys only restrict the "allowlist" policy; under another policy they give a false sense of control.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `allowed_pubkeys` is set only with `ingress_policy = "allowlist"`. */
export const allowedPubkeysIgnored: Rule = {
  id: 'W009',
  alias: 'allowed-pubkeys-ignored',
  severity: 'warning',
  summary: 'sovereign_mesh.relay.allowed_pubkeys is ignored unless ingress_policy = "allowlist"',
  check(m) {
    const relay = m.sovereign_mesh.relay;
    if (relay.allowed_pubkeys.length === 0 || relay.ingress_policy === 'allowlist') return [];
    return [
      finding(
        ['sovereign_mesh', 'relay', 'allowed_pubkeys'],
        `sovereign_mesh.relay.allowed_pubkeys lists ${relay.allowed_pubkeys.length} key(s) but ingress_policy = "${relay.ingress_policy}" does not read them`,
        'set ingress_policy = "allowlist" to accept only these keys, or delete allowed_pubkeys',
      ),
    ];
  },
};
