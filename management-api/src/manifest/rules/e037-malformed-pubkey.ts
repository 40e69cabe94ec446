// E037: the schema checks only the shape of an npub; one with a wrong checksum names no key, and the
// API would refuse to start with it.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { pubkeyToHex } from '../../grammar/pubkey.js';

/** Every public key in `[mesh]` (operators, members, host) decodes: an npub must carry a valid checksum. */
export const malformedPubkey: Rule = {
  id: 'E037',
  alias: 'malformed-pubkey',
  severity: 'error',
  summary: 'mesh.operator_pubkeys, mesh.allowed_pubkeys and mesh.host_pubkey must be valid npubs or 64 hex characters',
  check(m) {
    const out: RuleFinding[] = [];
    const hint = 'copy the key again from `agentbox identity` (npub or pubkey) of that box or operator; an npub carries a checksum that a typo breaks';
    for (const list of ['operator_pubkeys', 'allowed_pubkeys'] as const) {
      m.mesh[list].forEach((key, i) => {
        if (pubkeyToHex(key) === undefined)
          out.push(finding(['mesh', list, i], `mesh.${list}[${i}] = "${key}" is not a valid npub (its checksum does not match)`, hint));
      });
    }
    const host = m.mesh.host_pubkey;
    if (host !== '' && pubkeyToHex(host) === undefined)
      out.push(finding(['mesh', 'host_pubkey'], `mesh.host_pubkey = "${host}" is not a valid npub (its checksum does not match)`, hint));
    return out;
  },
};
