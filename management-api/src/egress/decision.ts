// One egress decision: is host:port allowed, and which checked address to connect to (resolved once, so DNS rebinding cannot swap it).
import { lookup } from 'node:dns/promises';
import { addressClass, canonicalAddress, type AddressClass } from '../grammar/address-class.js';
import type { Allowlist, HostMatch } from './allowlist.js';

/** Why a request was refused; bounded, so it can label a metric. */
export type DenyReason = 'domain-not-listed' | 'port-not-listed' | 'unresolvable' | AddressClass;

/** The outcome: allowed with the address to connect to, or denied with a reason. */
export type Verdict = { allowed: true; reason: HostMatch; address: string } | { allowed: false; reason: DenyReason };

/** Resolves a name to every address it has (dns.lookup with `all`). */
export type Resolver = (name: string) => Promise<string[]>;

/** dns.lookup with every address: the system resolver, as the agent's own resolution would be. */
export const systemResolver: Resolver = async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Decide `host:port` against `allowlist`. The name must match the list and the port be listed;
 * then every address the name resolves to is checked: one in a refused range (loopback,
 * private, CGNAT, link-local, metadata, multicast, unspecified, reserved) denies the request
 * unless the host is listed by its exact name or the address is listed literally. A match
 * through a `*.suffix` entry never opens a refused range: whoever controls a subdomain's DNS
 * could otherwise point it at the box's own network. The caller connects to `address`, never
 * to the name again.
 */
export async function decide(allowlist: Allowlist, host: string, port: number, resolve: Resolver = systemResolver): Promise<Verdict> {
  const match = allowlist.match(host);
  if (match === undefined) return { allowed: false, reason: 'domain-not-listed' };
  if (!allowlist.allowsPort(port)) return { allowed: false, reason: 'port-not-listed' };
  const literal = canonicalAddress(host);
  let addresses: string[];
  if (literal !== undefined) addresses = [literal];
  else {
    try {
      addresses = (await resolve(host)).map((a) => canonicalAddress(a)).filter((a): a is string => a !== undefined);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { allowed: false, reason: 'unresolvable' };
  }
  for (const address of addresses) {
    const refused = addressClass(address);
    if (refused !== undefined && match !== 'exact' && !allowlist.listsAddress(address)) return { allowed: false, reason: refused };
  }
  return { allowed: true, reason: match, address: addresses[0]! };
}
