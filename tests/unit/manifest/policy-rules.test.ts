// The [policy] rules on planted manifests: E051 (malformed rules), E052 (undeclared providers), W021 (unreachable egress rules), W022 (shadowed rules), with lines and keys.
import t from 'tap';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';

const env = { K: 'set' };
const load = (source: string) => loadManifestSource(source, { targetArch: 'x86_64', env });
const ids = async (source: string): Promise<string[]> => (await load(source)).diagnostics.map((d) => `${d.id}@${d.pointer}`);
const rule = (fields: Record<string, unknown>): string =>
  `[[policy.rules]]\n${Object.entries(fields)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join('\n')}\n`;
const allow = (domains: string[], ports = [443, 80]) =>
  `[sandbox.egress]\nallow_domains = ${JSON.stringify(domains)}\nallow_ports = ${JSON.stringify(ports)}\n`;
const provider = '[providers.anthropic]\nenv_var = "K"\nbase_url = "https://api.anthropic.com"\n';

t.test('no [policy]: no finding, and the defaults allow everything', async (t) => {
  const r = await load('');
  t.same(r.diagnostics, []);
  t.same(r.manifest?.policy, { default: 'allow', autonomy: 'autonomous', approval_timeout_sec: 300, max_pending_approvals: 64, rules: [] });
});

t.test('the schema refuses an unknown action, decision, field or autonomy', async (t) => {
  t.same(await ids(rule({ action: 'shell', decision: 'deny' })), ['SCHEMA@/policy/rules/0/action']);
  t.same(await ids(rule({ action: 'egress', decision: 'maybe' })), ['SCHEMA@/policy/rules/0/decision']);
  t.same(await ids(rule({ action: 'egress', decision: 'deny', hostname: 'x' })), ['SCHEMA@/policy/rules/0/hostname']);
  t.same(await ids('[policy]\nautonomy = "free"\n'), ['SCHEMA@/policy/autonomy']);
  t.same(await ids(rule({ decision: 'deny' })), ['SCHEMA@/policy/rules/0']);
});

t.test('E051: a field of another action, a malformed host, a repeated id — each at its key and line', async (t) => {
  const source = `${allow(['*.example.com'])}${rule({ action: 'egress', decision: 'deny', provider: 'openai' })}${rule({ action: 'provider', decision: 'deny', host: 'x.example.com', command: 'git' })}${rule({ id: 'r', action: 'egress', decision: 'deny', host: 'a*.example.com' })}${rule({ id: 'r', action: 'spawn', decision: 'allow' })}`;
  const found = (await load(source)).diagnostics;
  t.same(
    found.map((d) => `${d.id}@${d.pointer}`),
    ['E051@/policy/rules/0/provider', 'E051@/policy/rules/1/command', 'E051@/policy/rules/1/host', 'E051@/policy/rules/2/host', 'E051@/policy/rules/3/id'],
  );
  t.match(found[0], { line: 7, message: /policy.rules\[0\] is an egress rule, and an egress action has no provider/, hint: /agent, host, port, method, path/ });
  t.match(found[3], { message: /a wildcard is allowed only as a leading \*\./ });
  t.match(found[4], { message: /also the id of policy.rules\[2\]/ });
  const profiled = (await load(rule({ action: 'provider', decision: 'deny', profile: 'coder' }))).diagnostics;
  t.match(
    profiled,
    [{ id: 'E051', pointer: '/policy/rules/0/profile', message: /a provider action has no profile/, hint: /agent, provider/ }],
    'profile is a field of spawn rules only',
  );
  t.same(await ids(rule({ action: 'spawn', decision: 'deny', profile: 'coder' })), [], 'a spawn rule takes it');
});

t.test('E052: a provider rule matching no brokered provider', async (t) => {
  t.same(await ids(provider + rule({ action: 'provider', decision: 'deny', provider: 'openai' })), ['E052@/policy/rules/0/provider']);
  t.same(await ids(provider + rule({ action: 'provider', decision: 'deny', provider: 'anth*' })), [], 'a pattern matching one');
  t.same(await ids(provider + rule({ action: 'provider', decision: 'deny' })), [], 'no provider field: every provider');
  t.same(
    await ids(`[providers.anthropic]\nenv_var = "K"\n${rule({ action: 'provider', decision: 'deny', provider: 'anthropic' })}`),
    ['E052@/policy/rules/0/provider'],
    'declared without base_url: the broker does not serve it',
  );
  const [d] = (await load(rule({ action: 'provider', decision: 'deny', provider: 'openai' }))).diagnostics;
  t.match(d, { hint: /declare the provider with a base_url/ });
});

t.test('W021: an egress rule on a port or host the allowlist refuses, or without a proxy', async (t) => {
  t.same(await ids(allow(['*.example.com'], [443]) + rule({ action: 'egress', decision: 'deny', port: 22 })), ['W021@/policy/rules/0/port']);
  t.same(await ids(allow(['*.example.com']) + rule({ action: 'egress', decision: 'deny', host: 'example.org' })), ['W021@/policy/rules/0/host']);
  t.same(
    await ids(allow(['*.example.com']) + rule({ action: 'egress', decision: 'deny', host: 'example.com' })),
    ['W021@/policy/rules/0/host'],
    '*.example.com does not admit example.com',
  );
  t.same(await ids(allow(['*.example.com']) + rule({ action: 'egress', decision: 'deny', host: 'a.example.com' })), []);
  t.same(
    await ids(allow(['a.b.example.com']) + rule({ action: 'egress', decision: 'deny', host: '*.example.com' })),
    [],
    'a suffix rule admitting a listed name',
  );
  t.same(await ids(allow(['*.example.com']) + rule({ action: 'egress', decision: 'deny', host: '*.b.example.com' })), [], 'overlapping suffixes');
  t.same(await ids(allow(['203.0.113.7']) + rule({ action: 'egress', decision: 'deny', host: '203.0.113.7' })), [], 'an address listed literally');
  t.same(await ids(`[sandbox]\nenabled = false\n[security]\naudit_acknowledged = true\n${rule({ action: 'egress', decision: 'deny' })}`), [
    'W016@/sandbox/enabled',
    'W021@/policy/rules/0/action',
  ]);
  t.same(
    await ids(allow([]) + rule({ action: 'egress-change', decision: 'deny', host: 'x.example.org' })),
    [],
    'egress-change rules are about additions: never unreachable',
  );
});

t.test('W022: shadowed rules — a tie lost to deny, a duplicate, a more specific rule with the same reach', async (t) => {
  const domains = allow(['*.example.com']);
  t.same(
    await ids(
      domains + rule({ action: 'egress', decision: 'allow', host: 'a.example.com' }) + rule({ action: 'egress', decision: 'deny', host: 'a.example.com' }),
    ),
    ['W022@/policy/rules/0'],
  );
  t.same(
    await ids(rule({ action: 'spawn', decision: 'deny', command: 'git' }) + rule({ action: 'spawn', decision: 'deny', command: 'git' })),
    ['W022@/policy/rules/1'],
    'a repeat is shadowed by the first',
  );
  t.same(
    await ids(rule({ action: 'spawn', decision: 'allow', command: '/usr/bin/git' }) + rule({ action: 'spawn', decision: 'deny', command: 'git' })),
    [],
    'git covers /usr/bin/git, but the path has more literal characters: it decides for itself',
  );
  t.same(
    await ids(
      rule({ action: 'spawn', decision: 'allow', command: 'git' }) +
        rule({ action: 'spawn', decision: 'ask', command: '/usr/bin/git' }) +
        rule({ action: 'spawn', decision: 'deny', command: 'git' }),
    ),
    ['W022@/policy/rules/0'],
    'only the tie lost to deny; the path decides for itself',
  );
  t.same(
    await ids(
      domains + rule({ action: 'egress', decision: 'deny', host: '*.example.com' }) + rule({ action: 'egress', decision: 'allow', host: 'a.example.com' }),
    ),
    [],
    'a more specific exception is not shadowed',
  );
  t.same(
    await ids(rule({ action: 'spawn', decision: 'deny', command: 'git' }) + rule({ action: 'spawn', decision: 'allow', command: 'git', args: ['status'] })),
    [],
    'an extra field makes it more specific',
  );
  t.same(
    await ids(rule({ action: 'spawn', decision: 'deny', profile: 'coder' }) + rule({ action: 'spawn', decision: 'allow', profile: 'coder' })),
    ['W022@/policy/rules/1'],
    'a profile rule lost to deny',
  );
  t.same(
    await ids(rule({ action: 'spawn', decision: 'deny', profile: '*' }) + rule({ action: 'spawn', decision: 'allow' })),
    [],
    'profile = "*" outranks a field-less rule but leaves it the ad-hoc spawns',
  );
  t.same(
    await ids(rule({ action: 'spawn', decision: 'deny', profile: 'c*' }) + rule({ action: 'spawn', decision: 'deny', profile: 'coder', command: 'claude' })),
    [],
    'a second field: more specific',
  );
  const [d] = (
    await load(
      domains + rule({ action: 'egress', decision: 'allow', host: 'a.example.com' }) + rule({ action: 'egress', decision: 'deny', host: 'a.example.com' }),
    )
  ).diagnostics;
  t.match(d, {
    line: 4,
    message:
      /policy.rules\[0\] \(allow\) never decides: policy.rules\[1\] \(deny\) matches every action it matches and outranks it \(at equal specificity deny beats allow\)/,
  });
});
