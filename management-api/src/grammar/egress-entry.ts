// The grammar of one sandbox.egress.allow_domains entry (an exact host name, *.suffix, a literal address): rule E045 and the egress proxy read entries alike.
import { canonicalAddress } from './address-class.js';

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** A host name in the form entries and requests are compared in: lower case, no trailing dot. */
export function canonicalName(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function nameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 253) return 'a host name has 1 to 253 characters';
  const bad = name.split('.').find((label) => !LABEL.test(label));
  if (bad !== undefined) return `label ${JSON.stringify(bad)} is not a DNS label (1-63 letters, digits, - or _, not starting or ending with -)`;
  return undefined;
}

/**
 * What is wrong with one allow_domains entry, or undefined when it is an exact host name, a
 * `*.` followed by a host name, or a literal IPv4/IPv6 address (rule E045 and the runtime API
 * both use this, so a list the manifest accepts is one the API accepts).
 */
export function entryProblem(entry: string): string | undefined {
  if (canonicalAddress(entry) !== undefined) return entry.startsWith('[') ? 'write an IPv6 address without brackets' : undefined;
  if (entry.startsWith('*.')) {
    const suffix = entry.slice(2);
    if (canonicalAddress(suffix) !== undefined) return 'a *. wildcard applies to names, not to an address';
    return nameProblem(canonicalName(suffix));
  }
  if (entry.includes('*')) return 'a wildcard is allowed only as a leading *. (for example *.example.com)';
  return nameProblem(canonicalName(entry));
}
