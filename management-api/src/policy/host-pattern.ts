// The host field of egress rules: an exact name, *.suffix (subdomains only, as allow_domains reads it), a literal address, or * — compared in the proxy's canonical spelling.
import { canonicalAddress } from '../grammar/address-class.js';
import { canonicalName, entryProblem } from '../grammar/egress-entry.js';

/** A parsed host pattern. `value` is canonical: a lower-case name without trailing dot, the suffix without its `*.`, or the canonical address. */
export type HostPattern = { kind: 'any' } | { kind: 'exact'; value: string } | { kind: 'suffix'; value: string } | { kind: 'address'; value: string };

/** A host as an action names it, in the form patterns compare against. */
export type CanonicalHost = { address: string; name?: undefined } | { name: string; address?: undefined };

/** What is wrong with a host pattern, or undefined (`*`, or what an allow_domains entry may be). */
export function hostPatternProblem(pattern: string): string | undefined {
  return pattern === '*' ? undefined : entryProblem(pattern);
}

/** Parse a host pattern already known to be well formed (see {@link hostPatternProblem}). */
export function parseHostPattern(pattern: string): HostPattern {
  if (pattern === '*') return { kind: 'any' };
  const address = canonicalAddress(pattern);
  if (address !== undefined) return { kind: 'address', value: address };
  if (pattern.startsWith('*.')) return { kind: 'suffix', value: canonicalName(pattern.slice(2)) };
  return { kind: 'exact', value: canonicalName(pattern) };
}

/** The literal characters of a pattern (what ranks it): `*.example.com` counts `.example.com`. */
export function hostLiteral(pattern: HostPattern): number {
  if (pattern.kind === 'any') return 0;
  return pattern.kind === 'suffix' ? pattern.value.length + 1 : pattern.value.length;
}

/** `host` (a name, or an address with or without brackets) in canonical form. */
export function canonicalHost(host: string): CanonicalHost {
  const address = canonicalAddress(host);
  return address !== undefined ? { address } : { name: canonicalName(host) };
}

/** Whether `pattern` matches the canonical host. A suffix matches subdomains only, never the name itself, and never an address. */
export function hostMatches(pattern: HostPattern, host: CanonicalHost): boolean {
  switch (pattern.kind) {
    case 'any':
      return true;
    case 'address':
      return host.address === pattern.value;
    case 'exact':
      return host.name === pattern.value;
    case 'suffix':
      return (
        host.name !== undefined &&
        host.name.length > pattern.value.length + 1 &&
        host.name.endsWith(pattern.value) &&
        host.name.charCodeAt(host.name.length - pattern.value.length - 1) === 46
      );
  }
}
