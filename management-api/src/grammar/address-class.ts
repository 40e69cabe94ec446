// Literal IP addresses: one canonical spelling, and the non-public ranges (loopback, private, link-local, metadata…) an address falls in; shared by rule W017 and the egress proxy.
import { BlockList, isIP } from 'node:net';

/** Why an address is refused; bounded, so it can label a metric. */
export type AddressClass = 'unspecified' | 'loopback' | 'private' | 'cgnat' | 'link-local' | 'metadata' | 'multicast' | 'reserved';

// Checked in order: the metadata addresses first, since they sit inside link-local and ULA.
const RANGES: ReadonlyArray<readonly [AddressClass, ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']>]> = [
  [
    'metadata',
    [
      ['169.254.169.254', 32, 'ipv4'],
      ['fd00:ec2::254', 128, 'ipv6'],
    ],
  ],
  [
    'unspecified',
    [
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ],
  ],
  [
    'loopback',
    [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  ],
  [
    'private',
    [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ],
  ],
  ['cgnat', [['100.64.0.0', 10, 'ipv4']]],
  [
    'link-local',
    [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  ],
  [
    'multicast',
    [
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  ],
  ['reserved', [['240.0.0.0', 4, 'ipv4']]],
];

const LISTS: ReadonlyArray<readonly [AddressClass, BlockList]> = RANGES.map(([name, nets]) => {
  const list = new BlockList();
  for (const [net, prefix, family] of nets) list.addSubnet(net, prefix, family);
  return [name, list] as const;
});

const MAPPED_DOTTED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;
const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/**
 * The address in one canonical spelling: IPv4 dotted, an IPv4-mapped IPv6 address as its IPv4
 * form (so `::ffff:127.0.0.1` cannot pass as a public IPv6 address), other IPv6 lower-cased and
 * compressed. Undefined when `text` is not an IP literal (brackets are allowed around IPv6).
 */
export function canonicalAddress(text: string): string | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return undefined;
  // The URL parser compresses and lower-cases IPv6 (and writes a mapped IPv4 part in hex).
  const compressed = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const dotted = MAPPED_DOTTED.exec(compressed);
  if (dotted) return dotted[1];
  const hex = MAPPED_HEX.exec(compressed);
  if (hex) {
    const n = (parseInt(hex[1]!, 16) << 16) | parseInt(hex[2]!, 16);
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }
  return compressed;
}

/** The refused range `address` (canonical, see {@link canonicalAddress}) falls in, or undefined for a public address. */
export function addressClass(address: string): AddressClass | undefined {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  for (const [name, list] of LISTS) if (list.check(address, family)) return name;
  return undefined;
}
