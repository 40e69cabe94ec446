// The policy matrix: spawns, egress and providers against ordered rules — specificity, deny-wins ties, defaults, globs, the index against a plain scan.
import t from 'tap';
import { compilePolicy, PolicyRuleError } from '../../../management-api/src/policy/compile.js';
import { evaluate } from '../../../management-api/src/policy/evaluate.js';
import type { PolicyAction, PolicyRule, PolicySection } from '../../../management-api/src/policy/policy-types.js';
import { compileGlob } from '../../../management-api/src/policy/glob.js';
import { prepareAction } from '../../../management-api/src/policy/prepare.js';

const policy = (rules: PolicyRule[], extra: Partial<PolicySection> = {}) => compilePolicy({ default: 'allow', autonomy: 'autonomous', rules, ...extra });
/** Which rule decides, and what it says: `3:deny`, or `default:allow`. */
const decide = (rules: PolicyRule[], action: PolicyAction, extra: Partial<PolicySection> = {}): string => {
  const d = evaluate(policy(rules, extra), action);
  return `${d.rule === null ? 'default' : d.rule.index}:${d.decision}`;
};
const egress = (host: string, port = 443, more: Partial<PolicyAction & { kind: 'egress' }> = {}): PolicyAction => ({ kind: 'egress', host, port, ...more });
const spawn = (command: string, args: string[] = [], more: { agent?: string; cwd?: string; profile?: string } = {}): PolicyAction => ({
  kind: 'spawn',
  agent: more.agent ?? 'worker',
  command,
  args,
  ...(more.cwd !== undefined ? { cwd: more.cwd } : {}),
  ...(more.profile !== undefined ? { profile: more.profile } : {}),
});
const provider = (name: string, agent?: string): PolicyAction => ({ kind: 'provider', provider: name, ...(agent !== undefined ? { agent } : {}) });

t.test('no rule: the default decides, for every kind, and names itself', async (t) => {
  for (const def of ['allow', 'deny', 'ask'] as const) {
    const d = evaluate(policy([], { default: def }), egress('example.com'));
    t.equal(d.decision, def);
    t.equal(d.rule, null);
    t.equal(d.reason, 'no rule matches');
    t.match(d.version, /^sha256:[0-9a-f]{64}$/);
  }
  t.equal(decide([], spawn('git'), { default: 'deny' }), 'default:deny');
  t.equal(decide([], provider('anthropic'), { default: 'ask' }), 'default:ask');
  t.equal(decide([], { kind: 'egress-change', host: 'x.example.com' }, { default: 'deny' }), 'default:deny');
});

t.test('a rule of another kind never decides', async (t) => {
  t.equal(decide([{ action: 'spawn', decision: 'deny' }], egress('example.com')), 'default:allow');
  t.equal(decide([{ action: 'egress', decision: 'deny' }], provider('openai')), 'default:allow');
  t.equal(decide([{ action: 'egress', decision: 'deny' }], { kind: 'egress-change', host: 'a.b' }), 'default:allow');
});

t.test('egress: the most specific host decides (exact over a longer suffix over a shorter one over none)', async (t) => {
  const rules: PolicyRule[] = [
    { action: 'egress', decision: 'deny' },
    { action: 'egress', decision: 'allow', host: '*.com' },
    { action: 'egress', decision: 'deny', host: '*.example.com' },
    { action: 'egress', decision: 'allow', host: 'api.example.com' },
    { action: 'egress', decision: 'ask', host: '*.eu.example.com' },
  ];
  t.equal(decide(rules, egress('api.example.com')), '3:allow');
  t.equal(decide(rules, egress('API.Example.COM.')), '3:allow', 'names are compared in canonical form');
  t.equal(decide(rules, egress('www.example.com')), '2:deny');
  t.equal(decide(rules, egress('x.eu.example.com')), '4:ask');
  t.equal(decide(rules, egress('example.com')), '1:allow', '*.example.com does not match example.com itself');
  t.equal(decide(rules, egress('example.org')), '0:deny');
  t.equal(decide(rules, egress('203.0.113.7')), '0:deny', 'a suffix never matches an address');
});

t.test('more fields beat fewer; literal length breaks a tie of field counts', async (t) => {
  const rules: PolicyRule[] = [
    { action: 'egress', decision: 'allow', host: 'api.example.com' },
    { action: 'egress', decision: 'deny', host: '*.example.com', port: 22 },
  ];
  t.equal(decide(rules, egress('api.example.com', 22)), '1:deny', 'two fields beat one');
  t.equal(decide(rules, egress('api.example.com', 443)), '0:allow');
});

t.test('equal specificity: deny beats ask beats allow, whatever the order; a full tie goes to the first listed', async (t) => {
  const same = (decision: 'allow' | 'deny' | 'ask', id?: string): PolicyRule => ({ action: 'egress', decision, host: 'example.com', ...(id ? { id } : {}) });
  t.equal(decide([same('allow'), same('deny')], egress('example.com')), '1:deny');
  t.equal(decide([same('deny'), same('allow')], egress('example.com')), '0:deny');
  t.equal(decide([same('allow'), same('ask')], egress('example.com')), '1:ask');
  t.equal(decide([same('ask'), same('deny'), same('allow')], egress('example.com')), '1:deny');
  const d = evaluate(policy([same('deny', 'first'), same('deny', 'second')]), egress('example.com'));
  t.same(d.rule, { index: 0, id: 'first' }, 'the first listed of two identical rules');
  // Equal specificity across kinds of pattern: a glob path and an exact path of the same length.
  t.equal(
    decide(
      [
        { action: 'egress', decision: 'allow', path: '/a*' },
        { action: 'egress', decision: 'deny', path: '/ab' },
      ],
      egress('h.example', 80, { method: 'GET', path: '/ab' }),
    ),
    '1:deny',
    'more literal characters decide',
  );
});

t.test('egress: method and path match plain HTTP only; a CONNECT shows host and port alone', async (t) => {
  const rules: PolicyRule[] = [
    { action: 'egress', decision: 'allow', host: 'git.example.com' },
    { action: 'egress', decision: 'ask', host: 'git.example.com', method: 'POST', path: '/*/git-receive-pack' },
  ];
  t.equal(decide(rules, egress('git.example.com', 80, { method: 'POST', path: '/team/repo.git/git-receive-pack' })), '1:ask');
  t.equal(decide(rules, egress('git.example.com', 80, { method: 'post', path: '/team/repo.git/git-receive-pack' })), '1:ask', 'the method in upper case');
  t.equal(decide(rules, egress('git.example.com', 80, { method: 'GET', path: '/team/repo.git/info/refs' })), '0:allow');
  t.equal(decide(rules, egress('git.example.com', 443)), '0:allow', 'a CONNECT carries no method or path');
  t.equal(
    decide(rules, egress('git.example.com', 80, { method: 'POST', path: '/team/repo.git/git-receive-p%61ck' })),
    '1:ask',
    'a percent-escaped letter is the letter',
  );
});

t.test('egress: agent names and ports', async (t) => {
  const rules: PolicyRule[] = [
    { action: 'egress', decision: 'deny', agent: 'review*', host: '*.github.com' },
    { action: 'egress', decision: 'allow', host: '*.github.com', port: 443 },
  ];
  t.equal(decide(rules, egress('api.github.com', 443, { agent: 'reviewer' })), '0:deny', 'agent and host (literal 6+11) over host and port (literal 11)');
  t.equal(decide(rules, egress('api.github.com', 443, { agent: 'builder' })), '1:allow');
  t.equal(decide(rules, egress('api.github.com', 443)), '1:allow', 'no agent known: an agent rule does not match');
  t.equal(decide(rules, egress('api.github.com', 80, { agent: 'builder' })), 'default:allow');
});

t.test('spawn: command by last segment or as written, args by position, cwd, agent', async (t) => {
  const rules: PolicyRule[] = [
    { action: 'spawn', decision: 'allow', command: 'git' },
    { action: 'spawn', decision: 'ask', command: 'git', args: ['push'] },
    { action: 'spawn', decision: 'deny', command: '/usr/local/bin/*' },
    { action: 'spawn', decision: 'deny', agent: 'intern', command: 'git', args: ['push', '--force*'] },
    { action: 'spawn', decision: 'allow', cwd: 'repos/*' },
  ];
  t.equal(decide(rules, spawn('git', ['status'])), '0:allow');
  t.equal(decide(rules, spawn('/usr/bin/git', ['status'])), '0:allow', 'a pattern without / matches the last segment');
  t.equal(decide(rules, spawn('/usr/bin/git', ['push', 'origin'])), '1:ask', 'later arguments are free');
  t.equal(decide(rules, spawn('git', [])), '0:allow', 'fewer arguments than patterns: no match');
  t.equal(decide(rules, spawn('/usr/local/bin/tool')), '2:deny');
  t.equal(decide(rules, spawn('git', ['push', '--force-with-lease'], { agent: 'intern' })), '3:deny');
  t.equal(decide(rules, spawn('git', ['push', '--force'], { agent: 'senior' })), '1:ask');
  t.equal(decide(rules, spawn('make', [], { cwd: './repos/app/' })), '4:allow', 'the working directory is normalized');
  t.equal(decide(rules, spawn('make', [])), 'default:allow', 'no cwd is .');
});

t.test('spawn: by profile — a profile rule outranks the default and a field-less rule; an ad-hoc spawn has no profile', async (t) => {
  const byProfile = (profile?: string) => spawn('claude', [], profile !== undefined ? { agent: profile, profile } : {});
  t.equal(decide([{ action: 'spawn', decision: 'allow', profile: 'reviewer' }], byProfile('reviewer'), { default: 'deny' }), '0:allow', 'over the default');
  t.equal(decide([{ action: 'spawn', decision: 'allow', profile: 'reviewer' }], byProfile('coder'), { default: 'deny' }), 'default:deny', 'another profile');
  t.equal(
    decide([{ action: 'spawn', decision: 'allow', profile: 'reviewer' }], byProfile(), { default: 'deny' }),
    'default:deny',
    'an ad-hoc spawn of the same command',
  );
  const rules: PolicyRule[] = [
    { action: 'spawn', decision: 'deny' },
    { action: 'spawn', decision: 'allow', profile: '*' },
    { action: 'spawn', decision: 'ask', profile: 'rev*' },
  ];
  t.equal(decide(rules, byProfile('coder')), '1:allow', '* matches every spawn by profile, and constrains (it outranks the field-less rule)');
  t.equal(decide(rules, byProfile('reviewer')), '2:ask', 'more literal characters decide');
  t.equal(decide(rules, byProfile()), '0:deny', '* never matches an ad-hoc spawn');
  const d = evaluate(policy(rules), byProfile('reviewer'));
  t.same(d.matched, ['profile=rev*']);
});

t.test('spawn: deny beats allow at equal specificity with profile, whatever the order', async (t) => {
  const action = spawn('claude', [], { agent: 'coder', profile: 'coder' });
  t.equal(
    decide(
      [
        { action: 'spawn', decision: 'allow', profile: 'coder' },
        { action: 'spawn', decision: 'deny', profile: 'coder' },
      ],
      action,
    ),
    '1:deny',
  );
  t.equal(
    decide(
      [
        { action: 'spawn', decision: 'deny', profile: 'coder' },
        { action: 'spawn', decision: 'allow', profile: 'coder' },
      ],
      action,
    ),
    '0:deny',
  );
  // One field of five literal characters each: a profile rule and an agent rule tie.
  t.equal(
    decide(
      [
        { action: 'spawn', decision: 'allow', profile: 'coder' },
        { action: 'spawn', decision: 'deny', agent: 'coder' },
      ],
      action,
    ),
    '1:deny',
  );
  t.equal(
    decide(
      [
        { action: 'spawn', decision: 'deny', profile: 'coder' },
        { action: 'spawn', decision: 'allow', profile: 'coder', command: 'claude' },
      ],
      action,
    ),
    '1:allow',
    'a second field makes the allow more specific',
  );
});

t.test('provider: by name and agent', async (t) => {
  const rules: PolicyRule[] = [
    { action: 'provider', decision: 'allow', provider: 'anthropic' },
    { action: 'provider', decision: 'deny', provider: 'anthropic', agent: 'cheap-*' },
    { action: 'provider', decision: 'deny', provider: 'open*' },
  ];
  t.equal(decide(rules, provider('anthropic', 'lead')), '0:allow');
  t.equal(decide(rules, provider('anthropic', 'cheap-1')), '1:deny');
  t.equal(decide(rules, provider('anthropic')), '0:allow', 'an operator call (no agent)');
  t.equal(decide(rules, provider('openai', 'lead')), '2:deny');
  t.equal(decide(rules, provider('mistral', 'lead')), 'default:allow');
});

t.test('egress-change: the host or port being added', async (t) => {
  const rules: PolicyRule[] = [
    { action: 'egress-change', decision: 'deny', host: '*.internal.example' },
    { action: 'egress-change', decision: 'ask', port: 22 },
    { action: 'egress-change', decision: 'allow' },
  ];
  t.equal(decide(rules, { kind: 'egress-change', host: 'db.internal.example' }), '0:deny');
  t.equal(decide(rules, { kind: 'egress-change', port: 22 }), '1:ask');
  t.equal(decide(rules, { kind: 'egress-change', host: 'registry.npmjs.org' }), '2:allow');
  t.equal(decide(rules, { kind: 'egress-change' }), '2:allow', 'a change that only removes meets field-less rules only');
});

t.test('a decision names the rule, the matched fields and the version; the version follows the rules', async (t) => {
  const p = policy([{ id: 'no-push', action: 'egress', decision: 'deny', host: 'github.com', port: 443 }]);
  const d = evaluate(p, egress('github.com', 443));
  t.same(d.rule, { index: 0, id: 'no-push' });
  t.same(d.matched, ['host=github.com', 'port=443']);
  t.equal(d.reason, 'matched host=github.com, port=443');
  t.equal(evaluate(policy([{ action: 'egress', decision: 'deny' }]), egress('x.example')).reason, 'the rule has no fields: it matches every egress action');
  t.equal(d.version, p.version);
  t.equal(
    policy([{ id: 'no-push', action: 'egress', decision: 'deny', host: 'github.com', port: 443 }]).version,
    p.version,
    'the same policy has the same version',
  );
  t.not(policy([{ id: 'no-push', action: 'egress', decision: 'deny', host: 'github.com', port: 22 }]).version, p.version, 'a changed rule changes it');
  t.not(policy([], { default: 'deny' }).version, policy([]).version, 'so does the default');
});

t.test('a field the action kind lacks, or a malformed host, is refused at compile time', async (t) => {
  t.throws(() => policy([{ action: 'egress', decision: 'deny', provider: 'x' }]), PolicyRuleError);
  t.throws(() => policy([{ action: 'provider', decision: 'deny', host: 'x.com' }]), /a provider rule has no field host/);
  t.throws(() => policy([{ action: 'egress', decision: 'deny', profile: 'coder' }]), /an egress rule has no field profile/);
  t.throws(() => policy([{ action: 'egress', decision: 'deny', host: 'a*.example.com' }]), /policy.rules\[0\].host/);
});

t.test('globs: * any run, ? one character; no backtracking blow-up', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['a*', 'abc', true],
    ['a*', 'ba', false],
    ['*c', 'abc', true],
    ['a*c', 'ac', true],
    ['a*c', 'ab', false],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['*b*b*', 'abab', true],
    ['*b*b*', 'ab', false],
    ['a*b?d', 'axxbcd', true],
    ['?', '', false],
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['*', '', true],
    ['a**b', 'ab', true],
    ['*x?z*', 'wxyz', true],
  ];
  for (const [pattern, value, expected] of cases) t.equal(compileGlob(pattern).test(value), expected, `${pattern} ~ ${JSON.stringify(value)}`);
  const evil = compileGlob('*a*a*a*a*a*a*a*a*b');
  const started = performance.now();
  t.equal(evil.test('a'.repeat(8192)), false);
  t.ok(performance.now() - started < 50, 'a star-heavy pattern against a long value stays linear');
});

t.test('the index decides exactly as a scan of every rule does (random policies)', async (t) => {
  let seed = 7;
  const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const hosts = ['a.example.com', 'b.example.com', 'example.com', 'x.a.example.com', 'api.test', '203.0.113.7'];
  const hostPatterns = ['*', '*.example.com', '*.a.example.com', 'example.com', 'a.example.com', 'api.test', '*.test', '203.0.113.7'];
  const decisions = ['allow', 'deny', 'ask'] as const;
  for (let round = 0; round < 40; round++) {
    const rules: PolicyRule[] = Array.from({ length: 1 + rand(25) }, () => ({
      action: 'egress' as const,
      decision: decisions[rand(3)]!,
      ...(rand(2) ? { host: hostPatterns[rand(hostPatterns.length)]! } : {}),
      ...(rand(3) === 0 ? { port: [80, 443][rand(2)]! } : {}),
      ...(rand(4) === 0 ? { agent: ['w*', 'worker', 'x'][rand(3)]! } : {}),
    }));
    const p = policy(rules);
    for (const host of hosts)
      for (const port of [80, 443]) {
        const action = egress(host, port, { agent: 'worker' });
        const prepared = prepareAction(action);
        const scan = [...p.rules].filter((r) => r.kind === 'egress' && r.test(prepared)).sort((a, b) => b.rank - a.rank)[0];
        const d = evaluate(p, action);
        if (d.rule?.index !== scan?.index)
          t.fail(`round ${round} ${host}:${port}: index says ${d.rule?.index}, scan says ${scan?.index} — ${JSON.stringify(rules)}`);
      }
  }
  t.pass('index and scan agree');
});
