// The egress allowlist matcher, the refused address ranges and the decision (with a stand-in resolver: there is no DNS here).
import t from 'tap';
import { addressClass, canonicalAddress } from '../../../management-api/src/grammar/address-class.js';
import { Allowlist } from '../../../management-api/src/egress/allowlist.js';
import { entryProblem } from '../../../management-api/src/grammar/egress-entry.js';
import { decide, type Resolver } from '../../../management-api/src/egress/decision.js';
import { CredentialStore, hashCredential } from '../../../management-api/src/egress/credential-store.js';
import { parseAuthority } from '../../../management-api/src/egress/proxy.js';

const list = (domains: string[], ports = [443]) => new Allowlist({ allow_domains: domains, allow_ports: ports });

t.test('exact names, *.suffix and literal addresses', async (t) => {
  const l = list(['example.com', '*.svc.example.org', '203.0.113.7', '2001:DB8::1']);
  t.equal(l.match('example.com'), 'exact');
  t.equal(l.match('EXAMPLE.com.'), 'exact', 'case and a trailing dot do not matter');
  t.equal(l.match('www.example.com'), undefined, 'an exact entry does not cover subdomains');
  t.equal(l.match('a.svc.example.org'), 'suffix');
  t.equal(l.match('a.b.svc.example.org'), 'suffix', 'any depth below the suffix');
  t.equal(l.match('svc.example.org'), undefined, '*.suffix does not match the suffix itself');
  t.equal(l.match('evilsvc.example.org'), undefined, 'the suffix starts at a label boundary');
  t.equal(l.match('svc.example.org.evil.com'), undefined);
  t.equal(l.match('203.0.113.7'), 'address');
  t.equal(l.match('[2001:db8:0::1]'), 'address', 'IPv6 compared in canonical form, brackets allowed');
  t.equal(l.match('::ffff:203.0.113.7'), 'address', 'an IPv4-mapped IPv6 literal is its IPv4 address');
  t.equal(l.match('203.0.113.8'), undefined);
});

t.test('entry problems (rule E045 and the runtime API)', async (t) => {
  for (const ok of ['example.com', '*.example.com', 'localhost', '127.0.0.1', '::1', 'fd00:ec2::254', '_srv.example.com'])
    t.equal(entryProblem(ok), undefined, ok);
  t.match(entryProblem('*.10.0.0.1'), /names, not to an address/);
  t.match(entryProblem('a.*.example.com'), /only as a leading/);
  t.match(entryProblem('-bad.example.com'), /not a DNS label/);
  t.match(entryProblem('a..b'), /not a DNS label/);
  t.match(entryProblem('[::1]'), /without brackets/);
  t.match(entryProblem(`${'a'.repeat(64)}.com`), /not a DNS label/);
});

t.test('refused ranges, IPv4-mapped forms included', async (t) => {
  const cases: Array<[string, string | undefined]> = [
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', undefined],
    ['192.168.1.1', 'private'],
    ['fd12::1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['203.0.113.7', undefined],
    ['2606:4700::1', undefined],
  ];
  for (const [address, expected] of cases) t.equal(addressClass(canonicalAddress(address)!), expected, address);
  t.equal(canonicalAddress('::ffff:7f00:1'), '127.0.0.1', 'hex-written mapped address');
  t.equal(addressClass(canonicalAddress('[::ffff:169.254.169.254]')!), 'metadata');
  t.equal(canonicalAddress('example.com'), undefined);
});

t.test('decisions: names, ports, resolved addresses', async (t) => {
  const dns: Record<string, string[]> = {
    'api.example.com': ['203.0.113.10'],
    'inner.example.com': ['203.0.113.11', '10.0.0.5'],
    'meta.example.com': ['169.254.169.254'],
    'db.internal': ['10.0.0.9'],
    'v6.example.com': ['::ffff:127.0.0.1'],
  };
  const resolve: Resolver = async (name) => {
    const a = dns[name];
    if (!a) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return a;
  };
  const l = list(['*.example.com', 'db.internal', '10.0.0.5', 'nowhere.example.net'], [443]);
  t.same(await decide(l, 'api.example.com', 443, resolve), { allowed: true, reason: 'suffix', address: '203.0.113.10' });
  t.same(await decide(l, 'other.net', 443, resolve), { allowed: false, reason: 'domain-not-listed' });
  t.same(await decide(l, 'api.example.com', 22, resolve), { allowed: false, reason: 'port-not-listed' });
  t.same(await decide(l, 'meta.example.com', 443, resolve), { allowed: false, reason: 'metadata' }, 'a suffix match never opens the metadata address');
  t.same(await decide(l, 'v6.example.com', 443, resolve), { allowed: false, reason: 'loopback' }, 'a mapped loopback answer is loopback');
  t.same(
    await decide(l, 'inner.example.com', 443, resolve),
    { allowed: true, reason: 'suffix', address: '203.0.113.11' },
    'a private address listed literally passes',
  );
  t.same(await decide(l, 'db.internal', 443, resolve), { allowed: true, reason: 'exact', address: '10.0.0.9' }, 'an exact name may be private');
  t.same(await decide(l, 'nowhere.example.net', 443, resolve), { allowed: false, reason: 'unresolvable' });
  t.same(await decide(l, '10.0.0.5', 443, resolve), { allowed: true, reason: 'address', address: '10.0.0.5' });
  t.same(await decide(l, '10.0.0.6', 443, resolve), { allowed: false, reason: 'domain-not-listed' });
  // The checked address is the one returned: the caller never resolves the name again.
  let calls = 0;
  const rebinding: Resolver = async () => (++calls === 1 ? ['203.0.113.10'] : ['127.0.0.1']);
  const v = await decide(l, 'api.example.com', 443, rebinding);
  t.same(v, { allowed: true, reason: 'suffix', address: '203.0.113.10' });
  t.equal(calls, 1, 'resolved once');
});

t.test('credentials: hashes only, constant-time check', async (t) => {
  const store = new CredentialStore();
  store.set('agt_a', hashCredential('s3cret'));
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  t.same(store.check(basic('agt_a:s3cret')), { ok: true, agent: 'agt_a' });
  t.same(store.check(undefined), { ok: false, reason: 'no-credential' });
  t.same(store.check(basic('agt_a:wrong')), { ok: false, reason: 'bad-credential', agent: 'agt_a' });
  t.same(store.check(basic('agt_b:s3cret')), { ok: false, reason: 'bad-credential', agent: 'agt_b' });
  t.same(store.check(basic('not an id:x')), { ok: false, reason: 'bad-credential' });
  t.same(store.check('Bearer x'), { ok: false, reason: 'bad-credential' });
  store.delete('agt_a');
  t.same(store.check(basic('agt_a:s3cret')), { ok: false, reason: 'bad-credential', agent: 'agt_a' }, 'revoked');
  t.throws(() => store.set('agt a', hashCredential('x')));
  t.throws(() => store.set('agt_a', 'not-a-hash'));
});

t.test('CONNECT authorities', async (t) => {
  t.same(parseAuthority('example.com:443'), { host: 'example.com', port: 443 });
  t.same(parseAuthority('[::1]:8443'), { host: '::1', port: 8443 });
  for (const bad of ['example.com', 'example.com:0', 'example.com:70000', ':443', 'a/b:443', '::1:443']) t.equal(parseAuthority(bad), undefined, bad);
});
