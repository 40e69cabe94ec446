// `agentbox policy test`: the deciding rule and why, as text and as --json, what the box refuses first, and bad usage named.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentbox } from '../../helpers/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-policy-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'agentbox.toml');
writeFileSync(
  file,
  `[sandbox.egress]
allow_domains = ["github.com", "registry.npmjs.org"]

[providers.anthropic]
env_var = "K"
base_url = "https://api.anthropic.com"

[policy]
default = "deny"

[[policy.rules]]
id = "registry"
action = "egress"
decision = "allow"
host = "registry.npmjs.org"
port = 443

[[policy.rules]]
id = "push-asks"
action = "egress"
decision = "ask"
host = "github.com"
method = "POST"
path = "/*/git-receive-pack"

[[policy.rules]]
action = "provider"
decision = "deny"
provider = "anthropic"
agent = "cheap-*"

[[policy.rules]]
action = "provider"
decision = "allow"

[[policy.rules]]
action = "spawn"
decision = "allow"
command = "git"

[[policy.rules]]
id = "no-reviewer"
action = "spawn"
decision = "deny"
profile = "reviewer"

[agents.profiles.reviewer]
command = "/usr/bin/git"
args = ["log"]
`,
);
const env = { ...process.env, K: 'set' };
const policyTest = (...args: string[]) => runAgentbox(['policy', 'test', '--file', file, ...args], { env });

t.test('text: the deciding rule, why, the outcome and the version', async (t) => {
  const r = policyTest('--action', 'egress', '--host', 'registry.npmjs.org', '--port', '443');
  t.equal(r.code, 0, r.stderr);
  t.match(
    r.stdout,
    /^decision: allow\nrule: {5}rule 0 \("registry"\) = policy\.rules\[0\]\nwhy: {6}matched host=registry\.npmjs\.org, port=443\noutcome: {2}allowed\npolicy: {3}sha256:[0-9a-f]{64}\n$/,
  );
  const ask = policyTest('--action', 'egress', '--host', 'github.com', '--port', '80', '--method', 'POST', '--path', '/team/app.git/git-receive-pack');
  t.match(
    ask.stdout,
    /decision: ask\n.*\nwhy: {6}matched host=github\.com, method=POST, path=\/\*\/git-receive-pack\noutcome: {2}denied — rule 1 \("push-asks"\) asks for approval; this agent is autonomous \(autonomy autonomous\)/,
  );
  const supervised = policyTest(
    '--action',
    'egress',
    '--host',
    'github.com',
    '--port',
    '80',
    '--method',
    'POST',
    '--path',
    '/a/b/git-receive-pack',
    '--autonomy',
    'supervised',
  );
  t.match(
    supervised.stdout,
    /outcome: {2}held — .*asks for approval; held for an operator's decision \(agentbox approvals\); denied after 300 s without one \(autonomy supervised\)/,
  );
  const fallback = policyTest('--action', 'egress', '--host', 'github.com', '--port', '443');
  t.match(
    fallback.stdout,
    /^decision: deny\nrule: {5}policy\.default \(no rule matches\)\nwhy: {6}no rule matches\noutcome: {2}denied — policy\.default denies \(no rule matches\)/,
    'a CONNECT has no method: the default decides',
  );
  const spawn = policyTest('--action', 'spawn', '--agent', 'worker', '--command', '/usr/bin/git', '--arg', 'status');
  t.match(spawn.stdout, /decision: allow\nrule: {5}rule 4 = policy\.rules\[4\]\nwhy: {6}matched command=git/);
});

t.test('spawn by profile: the rules see the command of the profile, and a profile rule decides', async (t) => {
  const r = policyTest('--action', 'spawn', '--profile', 'reviewer', '--json');
  t.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Record<string, unknown>;
  t.match(report, {
    action: { kind: 'spawn', agent: 'reviewer', command: '/usr/bin/git', args: ['log'], profile: 'reviewer' },
    decision: 'deny',
    rule: { index: 5, id: 'no-reviewer' },
    matched: ['profile=reviewer'],
  });
  // The same command ad hoc has no profile: the command rule decides.
  t.match(policyTest('--action', 'spawn', '--agent', 'reviewer', '--command', '/usr/bin/git', '--arg', 'log').stdout, /decision: allow\nrule: {5}rule 4 /);
  const named = JSON.parse(policyTest('--action', 'spawn', '--profile', 'reviewer', '--agent', 'second', '--arg', 'show', '--json').stdout) as Record<
    string,
    unknown
  >;
  t.match(named, { action: { agent: 'second', args: ['show'], profile: 'reviewer' }, decision: 'deny' }, "--agent names it, --arg replaces the profile's args");
});

t.test('what the box refuses before the policy is asked', async (t) => {
  const r = policyTest('--action', 'egress', '--host', 'example.com', '--port', '443');
  t.match(r.stdout, /before: {3}the egress proxy refuses example\.com first \(domain-not-listed/);
  const p = policyTest('--action', 'provider', '--provider', 'openai');
  t.match(p.stdout, /before: {3}the broker serves no provider openai/);
});

t.test('--json', async (t) => {
  const r = policyTest('--action', 'provider', '--provider', 'anthropic', '--agent', 'cheap-2', '--json');
  t.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Record<string, unknown>;
  t.match(report, {
    action: { kind: 'provider', provider: 'anthropic', agent: 'cheap-2' },
    decision: 'deny',
    rule: { index: 2 },
    matched: ['agent=cheap-*', 'provider=anthropic'],
    reason: 'matched agent=cheap-*, provider=anthropic',
    outcome: { allowed: false, autonomy: 'autonomous', reason: 'rule 2 denies (matched agent=cheap-*, provider=anthropic)' },
    before: null,
  });
  t.match(report['version'], /^sha256:[0-9a-f]{64}$/);
  const operator = JSON.parse(policyTest('--action', 'provider', '--provider', 'anthropic', '--json').stdout) as Record<string, unknown>;
  t.match(operator, { decision: 'allow', rule: { index: 3 } }, "an operator's call: the agent rule does not match");
});

t.test('bad usage is named, exit 2; a manifest with errors exits 1', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [[], /--action is required/],
    [['--action', 'shell'], /--action must be spawn, egress, provider or egress-change/],
    [['--action', 'egress', '--host', 'x.com'], /an egress action needs --port/],
    [['--action', 'egress', '--host', 'x.com', '--port', '99999'], /--port must be a port 1-65535/],
    [['--action', 'egress', '--host', 'x.com', '--port', '80', '--method', 'GET'], /--method and --path go together/],
    [['--action', 'egress', '--host', 'x.com', '--port', '80', '--provider', 'p'], /--provider is not a field of an egress action/],
    [['--action', 'spawn', '--command', 'git'], /needs --agent NAME and --command CMD, or --profile NAME/],
    [['--action', 'spawn', '--agent', 'w'], /a spawn action needs --command/],
    [['--action', 'spawn', '--profile', 'nobody'], /profile "nobody" is not under \[agents\.profiles\] \(profiles: reviewer\)/],
    [['--action', 'spawn', '--profile', 'reviewer', '--command', 'sh'], /command comes from profile reviewer .*; leave out --command, or --profile/],
    [['--action', 'provider', '--provider', 'p', '--autonomy', 'free'], /--autonomy must be autonomous or supervised/],
  ];
  for (const [args, message] of cases) {
    const r = policyTest(...args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, message);
  }
  const bad = path.join(dir, 'bad.toml');
  writeFileSync(bad, '[[policy.rules]]\naction = "egress"\ndecision = "deny"\nprovider = "x"\n');
  const r = runAgentbox(['policy', 'test', '--file', bad, '--action', 'egress', '--host', 'a.b', '--port', '443']);
  t.equal(r.code, 1);
  t.match(r.stderr, /bad\.toml:4:1: error E051 malformed-policy-rule at policy\.rules\.0\.provider/);
  t.match(runAgentbox(['policy', 'test', '--help']).stdout, /Usage: agentbox policy test --action spawn\|egress\|provider\|egress-change/);
});
