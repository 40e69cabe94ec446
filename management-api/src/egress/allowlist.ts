// The egress allowlist: entries of sandbox.egress.allow_domains (exact names, *.suffix, literal addresses) and allow_ports, and how a host matches them.
import { canonicalAddress } from './address.js';

/** The allowlist in the manifest's spelling (`[sandbox.egress]` allow_domains, allow_ports). */
export interface EgressPolicy {
  allow_domains: string[];
  allow_ports: number[];
}

/** How a host matched the list: its exact name, a `*.suffix` entry, or a listed literal address. */
export type HostMatch = 'exact' | 'suffix' | 'address';

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

/** A compiled allowlist. */
export class Allowlist {
  readonly #names = new Set<string>();
  readonly #suffixes: string[] = [];
  readonly #addresses = new Set<string>();
  readonly #ports: ReadonlySet<number>;

  /** Compile `policy`; entries with a problem (see {@link entryProblem}) match nothing. */
  constructor(readonly policy: Readonly<EgressPolicy>) {
    for (const entry of policy.allow_domains) {
      if (entryProblem(entry) !== undefined) continue;
      const address = canonicalAddress(entry);
      if (address !== undefined) this.#addresses.add(address);
      else if (entry.startsWith('*.')) this.#suffixes.push(`.${canonicalName(entry.slice(2))}`);
      else this.#names.add(canonicalName(entry));
    }
    this.#ports = new Set(policy.allow_ports);
  }

  /**
   * How `host` (a name or a literal address, IPv6 with or without brackets) matches the list, or
   * undefined when it does not. `*.example.com` matches `a.example.com` and `a.b.example.com`,
   * never `example.com` itself.
   */
  match(host: string): HostMatch | undefined {
    const address = canonicalAddress(host);
    if (address !== undefined) return this.#addresses.has(address) ? 'address' : undefined;
    const name = canonicalName(host);
    if (this.#names.has(name)) return 'exact';
    return this.#suffixes.some((s) => name.endsWith(s) && name.length > s.length) ? 'suffix' : undefined;
  }

  /** Whether `address` (canonical) is listed literally, which lets it through the refused ranges. */
  listsAddress(address: string): boolean {
    return this.#addresses.has(address);
  }

  /** Whether destination `port` is listed. */
  allowsPort(port: number): boolean {
    return this.#ports.has(port);
  }
}
