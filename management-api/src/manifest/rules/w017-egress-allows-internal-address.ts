// W017: a listed literal address (or localhost) in a range the egress proxy otherwise refuses opens the box's own network to agents.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { addressClass, canonicalAddress } from '../../grammar/address-class.js';

/** Listing loopback, private, link-local or metadata addresses is deliberate. */
export const egressAllowsInternalAddress: Rule = {
  id: 'W017',
  alias: 'egress-allows-internal-address',
  severity: 'warning',
  summary: 'sandbox.egress.allow_domains lists a loopback, private, link-local or metadata address',
  check(m) {
    return m.sandbox.egress.allow_domains.flatMap((entry, i) => {
      const address = canonicalAddress(entry);
      const range = entry.toLowerCase() === 'localhost' ? 'loopback' : address !== undefined ? addressClass(address) : undefined;
      if (range === undefined) return [];
      return [
        finding(
          ['sandbox', 'egress', 'allow_domains', i],
          `sandbox.egress.allow_domains[${i}] = ${JSON.stringify(entry)} is a ${range} address: agents may reach it through the egress proxy${range === 'metadata' ? ' (the cloud metadata service hands out credentials)' : ''}`,
          'list only the public hosts agents need; reach box services through the management API',
        ),
      ];
    });
  },
};
