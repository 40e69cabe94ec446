// The egress allowlist: entries of sandbox.egress.allow_domains (exact names, *.suffix, literal addresses) and allow_ports, and how a host matches them.
import { canonicalAddress } from '../grammar/address-class.js';
import { canonicalName, entryProblem } from '../grammar/egress-entry.js';

/** The allowlist in the manifest's spelling (`[sandbox.egress]` allow_domains, allow_ports). */
export interface EgressPolicy {
  allow_domains: string[];
  allow_ports: number[];
}

/** How a host matched the list: its exact name, a `*.suffix` entry, or a listed literal address. */
export type HostMatch = 'exact' | 'suffix' | 'address';

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
