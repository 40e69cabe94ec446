// Focused tests for the rules whose logic has corners: graphs, secrets, URLs, addresses, context, purity.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { ruleCatalogue } from '../../../management-api/src/manifest/rules/index.js';
import type { RuleContext } from '../../../management-api/src/manifest/rules/rule.js';
import type { Diagnostic } from '../../../management-api/src/manifest/diagnostics.js';
import type { Manifest } from '../../../management-api/src/manifest/generated/manifest-types.js';
import { dependencyCycles, startPriorities } from '../../../management-api/src/manifest/rules/helpers/graph.js';
import { shadowedBaselinePath } from '../../../management-api/src/manifest/rules/helpers/exceptions.js';
import { isSecretName, secretKind } from '../../../management-api/src/secrets/secret-names.js';

const x86: RuleContext = { targetArch: 'x86_64', env: {} };
const arm: RuleContext = { targetArch: 'aarch64', env: {} };
const mesh = '[mesh]\nmode = "client"\nhost_url = "https://mesh.example.com"\n';
const rulesDir = fileURLToPath(new URL('../../../management-api/src/manifest/rules', import.meta.url));
const fixturesDir = fileURLToPath(new URL('../../fixtures/rules', import.meta.url));

/** Rule diagnostics of `source`; throws (failing the test) if the manifest did not pass the schema. */
async function diagnose(source: string, context: RuleContext = x86): Promise<Diagnostic[]> {
  const r = await loadManifestSource(source, context);
  const early = r.diagnostics.find((d) => d.source !== 'rule');
  if (early) throw new Error(`test manifest is not schema-valid: ${early.pointer} ${early.message}`);
  return r.diagnostics;
}

/** `id@pointer` of every diagnostic, for compact comparisons. */
async function found(source: string, context: RuleContext = x86): Promise<string[]> {
  return (await diagnose(source, context)).map((d) => `${d.id}@${d.pointer}`);
}

/** A programme table with an absolute command and the given extra lines. */
function program(name: string, extra: string): string {
  return `[programs.${name}]\ncommand = "/usr/bin/env"\nargs = ["node", "/workspace/${name}.js"]\n${extra}\n`;
}

t.test('dependency cycles', async (t) => {
  const three =
    program('a', 'priority = 300\ndepends_on = ["b"]') +
    program('b', 'priority = 200\ndepends_on = ["c"]') +
    program('c', 'priority = 100\ndepends_on = ["a"]') +
    program('d', 'priority = 400\ndepends_on = ["a"]');
  t.same(await found(three), ['E018@/programs/a/depends_on'], 'a three-programme cycle is one finding; its edges are not E019 findings; d outside it is fine');
  const d = (await diagnose(three))[0];
  t.match(d?.message, /a, b, c/, 'the message names every programme of the cycle');

  const self = program('a', 'priority = 300\ndepends_on = ["a"]');
  t.same(await found(self), ['E017@/programs/a/depends_on/0'], 'a self-dependency is E017, not a cycle');

  const two =
    program('a', 'priority = 300\ndepends_on = ["b"]') +
    program('b', 'priority = 200\ndepends_on = ["a"]') +
    program('x', 'priority = 500\ndepends_on = ["y"]') +
    program('y', 'priority = 400\ndepends_on = ["x"]');
  t.same(await found(two), ['E018@/programs/a/depends_on', 'E018@/programs/x/depends_on'], 'two separate cycles are two findings');

  // A chain deeper than the JS stack would allow for a recursive walk, closed into one big cycle.
  const programs: Manifest['programs'] = {};
  const n = 20000;
  for (let i = 0; i < n; i++) {
    programs[`p${i}`] = {
      command: '/bin/true',
      args: [],
      priority: 500,
      required_for_readiness: false,
      depends_on: [`p${(i + 1) % n}`],
      port: 0,
      environment: {},
      autorestart: 'on-failure',
    };
  }
  const cycles = dependencyCycles({ programs } as unknown as Manifest);
  t.equal(cycles.length, 1, 'a 20,000-programme cycle is found without overflowing the stack');
  t.equal(cycles[0]?.length, n);
});

t.test('depends_on orders the start; priorities order the rest', async (t) => {
  const equal = program('queue', 'priority = 500') + program('worker', 'priority = 500\ndepends_on = ["queue"]');
  t.same(await found(equal), [], 'equal priorities: depends_on decides, so the order is defined');
  const later = program('queue', 'priority = 600') + program('worker', 'priority = 500\ndepends_on = ["queue"]');
  t.same(await found(later), [], 'a dependency with a larger priority is started first all the same');
  const [m] = [(await loadManifestSource(later, x86)).manifest!];
  t.same(Object.fromEntries(startPriorities(m)), { queue: 600, worker: 601 }, 'the dependant is moved past its dependency');
  const raised = program('queue', 'priority = 600') + program('worker', 'priority = 500\ndepends_on = ["queue"]') + program('cache', 'priority = 601');
  t.same(await found(raised), ['W002@/programs/cache/priority'], "a raised start priority can meet another programme's");
  t.match((await diagnose(raised))[0]?.message, /programs\.cache and programs\.worker both start at priority 601/);
  const typo = program('queue', 'priority = 400') + program('worker', 'depends_on = ["queu"]');
  const [d] = await diagnose(typo);
  t.equal(d?.id, 'E017');
  t.match(d?.hint, /did you mean "queue"/, 'an unknown name gets a suggestion');
});

t.test('secret detection: names', async (t) => {
  for (const name of ['GITHUB_TOKEN', 'DB_PASSWORD', 'OPENAI_API_KEY', 'CLIENT_SECRET', 'apiKey', 'AWS_SECRET_ACCESS_KEY', 'SSH_PRIVATE_KEY']) {
    t.ok(isSecretName(name), `${name} names a secret`);
  }
  for (const name of ['GITHUB_TOKEN_FILE', 'TOKEN_ENV', 'MAX_TOKENS', 'CACHE_KEY', 'PWD', 'PASSWORD_MIN_LENGTH', 'SORT_KEY']) {
    t.notOk(isSecretName(name), `${name} does not name a secret`);
  }
});

t.test('secret detection: values', async (t) => {
  const secrets: Array<[string, RegExp]> = [
    ['sk-example-not-a-real-key-000000', /API key/],
    [`ghp_${'0'.repeat(36)}`, /GitHub/],
    [`Bearer ghp_${'a1'.repeat(18)}`, /GitHub/],
    [`--token=glpat-${'x'.repeat(20)}`, /GitLab/],
    ['AKIA' + 'ABCDEFGHIJKLMNOP', /AWS/],
    [`nsec1${'q'.repeat(58)}`, /Nostr/],
    [`123456789:${'A'.repeat(35)}`, /Telegram/],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N', /JSON web token/],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nabc', /PEM/],
    ['Z9xK2mQ7pL4vN8rT1wY6bH3jF5dS0aGc', /high-entropy/],
  ];
  for (const [value, kind] of secrets) t.match(secretKind(value), kind, `${value.slice(0, 16)}… is a secret`);
  const plain = [
    'GITHUB_TOKEN',
    'AGENTBOX_PG_CONNECTION_STRING_NAME',
    '/workspace/SomeLongDirectoryName/Subdir123/file.ts',
    'a3f5c9e1b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2',
    '--max-old-space-size=4096',
    'ThisIsAVeryLongCamelCaseIdentifier123',
    'MyVeryLongConfigurationValue2024XYZ',
    'https://collector.example.com/v1/traces',
    '3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d',
    'sk-short',
    '',
  ];
  for (const value of plain) t.equal(secretKind(value), undefined, `"${value}" is not a secret`);
});

t.test('secret rules on whole manifests: no false positives on names of secrets', async (t) => {
  const named = `${mesh}\n[adapters]\nbeads = "external-http"\n\n[integrations.beads]\nurl = "https://beads.example.com"\ntoken_env = "GITHUB_TOKEN"\n`;
  t.same(await found(named, { targetArch: 'x86_64', env: { GITHUB_TOKEN: 'x' } }), [], 'token_env = "GITHUB_TOKEN" is a name, not a secret');
  const env = program(
    'worker',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…} reference in the manifest, which the rule must not take for a secret
    'environment = { GITHUB_TOKEN_FILE = "/run/secrets/gh", MAX_TOKENS = "4096", OPENAI_API_KEY = "${OPENAI_API_KEY}", DB_PASSWORD = "%(ENV_DB_PASSWORD)s", API_TOKEN = "", LOG_FORMAT = "json" }',
  );
  t.same(await found(env), [], 'file names, counts, references and empty values are not inline secrets');
  const pasted = `${mesh}\n[adapters]\nbeads = "external-http"\n\n[integrations.beads]\nurl = "https://beads.example.com"\ntoken_env = "ghp_${'0'.repeat(36)}"\n`;
  const [d] = await diagnose(pasted);
  t.equal(d?.id, 'E005', 'a token pasted into token_env is E005 (and not looked up as a variable by W008)');
  t.equal(d?.pointer, '/integrations/beads/token_env');
  t.match(d?.hint, /NAME of the variable/);
  const both = program('worker', `environment = { GITHUB_TOKEN = "ghp_${'0'.repeat(36)}" }`);
  t.same(await found(both), ['E004@/programs/worker/environment/GITHUB_TOKEN'], 'a secret-named literal that also looks like a key is reported once');
  const query = '[observability]\notlp_endpoint = "https://collector.example.com/v1/traces?api_key=sk-example-not-a-real-key-000000"\n';
  t.same(await found(query), ['E005@/observability/otlp_endpoint'], 'a key in a URL query is found');
});

t.test('credentials in URLs', async (t) => {
  t.same(await found('[sovereign_mesh]\nrelays = ["wss://npub:pw@relay.example.com"]\n'), ['E003@/sovereign_mesh/relays/0'], 'relay URLs are checked');
  t.same(await found(`${mesh.replace('https://', 'https://admin@')}`), ['E003@/mesh/host_url'], 'a user name alone is reported too');
  const [d] = await diagnose('[observability]\notlp_endpoint = "https://u:p@collector.example.com/v1/traces"\n');
  t.notMatch(d?.hint, /u:p/, 'the hint does not repeat the secret');
});

t.test('plaintext endpoints: loopback is fine, other hosts warn', async (t) => {
  for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'agentbox.localhost']) {
    t.same(await found(`[observability]\notlp_endpoint = "http://${host}:4318/v1/traces"\n`), [], `http://${host} is loopback`);
  }
  for (const host of ['10.0.0.5', 'collector', '[fd00::1]', '128.0.0.1']) {
    t.same(
      await found(`[observability]\notlp_endpoint = "http://${host}:4318/v1/traces"\n`),
      ['W006@/observability/otlp_endpoint'],
      `http://${host} is remote`,
    );
  }
  t.same(
    await found('[sovereign_mesh]\nrelays = ["ws://relay.example.com", "wss://relay2.example.com"]\n'),
    ['W006@/sovereign_mesh/relays/0'],
    'ws:// is plaintext too; wss:// is not',
  );
});

t.test('relay addresses: IPv4 and IPv6 wildcards and loopback', async (t) => {
  const relay = (lines: string) => `[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\n${lines}\n`;
  for (const bind of ['0.0.0.0', '::', '[::]']) {
    t.same(await found(relay(`bind = "${bind}"`)), ['E011@/sovereign_mesh/relay/bind'], `${bind} is a wildcard`);
    t.same(await found(relay(`bind = "${bind}"\nexpose = true`)), [], `${bind} with expose is fine`);
  }
  t.same(await found(relay('bind = "::1"\nexpose = true')), ['W010@/sovereign_mesh/relay/expose'], '::1 is loopback');
  t.same(await found('[sovereign_mesh.relay]\nbind = "0.0.0.0"\n'), [], 'a disabled relay is not checked');
});

t.test('injected context: environment and target architecture', async (t) => {
  const provider = '[providers.openai]\nenv_var = "OPENAI_API_KEY"\n';
  t.same(await found(provider, { targetArch: 'x86_64', env: {} }), ['W004@/providers/openai/env_var'], 'unset variable warns');
  t.same(await found(provider, { targetArch: 'x86_64', env: { OPENAI_API_KEY: '' } }), ['W004@/providers/openai/env_var'], 'an empty variable counts as unset');
  t.same(await found(provider, { targetArch: 'x86_64', env: { OPENAI_API_KEY: 'k' } }), [], 'a set variable is fine');
  t.same(await found('[providers.openai]\nenv_var = "OPENAI_API_KEY"\nenabled = false\n'), [], 'a disabled provider is not looked up');
  process.env.AGENTBOX_RULES_TEST_KEY = 'set-in-the-process';
  t.teardown(() => delete process.env.AGENTBOX_RULES_TEST_KEY);
  t.same(
    await found('[providers.p]\nenv_var = "AGENTBOX_RULES_TEST_KEY"\n', { targetArch: 'x86_64', env: {} }),
    ['W004@/providers/p/env_var'],
    'the process environment is not consulted, only the injected one',
  );
  t.same(
    await found('[providers.p]\nenv_var = "openai_key"\n', { targetArch: 'x86_64', env: { openai_key: 'k' } }),
    ['E022@/providers/p/env_var'],
    'a lower-case name is not a placeholder',
  );
  const rocm = '[features]\ngpu = "rocm"\n\n[security.exceptions.gpu-rocm]\nreason = "inference"\n';
  t.same(await found(rocm, x86), [], 'rocm on x86_64 is fine');
  t.same(await found(rocm, arm), ['E013@/features/gpu'], 'rocm on aarch64 is not');
});

t.test('baseline paths: exceptions only add', async (t) => {
  t.equal(shadowedBaselinePath('/var'), '/var/lib/agentbox', 'a parent of a baseline path hides it');
  t.equal(shadowedBaselinePath('/workspace/'), '/workspace', 'trailing slashes do not hide a match');
  t.equal(shadowedBaselinePath('/run//agentbox/.'), '/run/agentbox', 'paths are normalised');
  t.equal(shadowedBaselinePath('/workspace/cache'), undefined, 'below a baseline path is an addition');
  t.equal(shadowedBaselinePath('/dev/shm'), undefined);
  const ex = (line: string) => `[features]\ncode_server = true\n\n[security.exceptions.code-server]\nreason = "editor"\n${line}\n`;
  t.same(await found(ex('volumes = ["/srv/conf:/etc:ro"]')), ['E029@/security/exceptions/code-server/volumes/0'], 'a volume over /etc');
  t.same(await found(ex('tmpfs = ["/tmp:size=64m"]')), ['E029@/security/exceptions/code-server/tmpfs/0'], 'tmpfs options do not hide the path');
  t.same(await found(ex('volumes = ["editor-home:/home/agent"]')), [], 'a named volume on a path of its own is fine');
  t.same(await found(ex('volumes = ["/a:/b:/c:ro"]')), ['E034@/security/exceptions/code-server/volumes/0'], 'too many parts is malformed');
  t.same(await found(ex('volumes = ["/a:/b:rx"]')), ['E034@/security/exceptions/code-server/volumes/0'], 'an unknown mode is malformed');
});

t.test('ports: relay only when enabled, programmes only when set', async (t) => {
  t.same(await found('[sovereign_mesh.relay]\nport = 9090\n'), [], 'a disabled relay does not hold its port');
  const on = '[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\nport = 9091\n';
  t.same(await found(on), ['E006@/sovereign_mesh/relay/port'], 'an enabled relay does');
  t.same(await found(program('a', 'priority = 200') + program('b', 'priority = 300')), [], 'port 0 means none and never collides');
  const clash = program('a', 'priority = 200\nport = 8080') + program('b', 'priority = 300\nport = 8080');
  const [d] = await diagnose(clash);
  t.equal(d?.pointer, '/programs/b/port');
  t.match(d?.hint, /for example 8081/, 'the suggested port is free');
  t.same(await found('[observability]\nmetrics_port = 443\n'), ['E026@/observability/metrics_port'], 'metrics below 1024');
});

t.test('ports: an enabled feature holds its fixed port', async (t) => {
  const codeServer = '[features]\ncode_server = true\n\n[security.exceptions.code-server]\nreason = "editor"\n';
  t.same(await found(codeServer), [], 'on its own, no collision');
  t.same(await found('[api]\nport = 8443\n'), [], 'a disabled feature holds nothing');
  const [d, ...rest] = await diagnose(`[api]\nport = 8443\n\n${codeServer}`);
  t.equal(rest.length, 0);
  t.equal(d?.id, 'E006');
  t.equal(d?.pointer, '/api/port', 'the movable key is blamed, not the feature');
  t.match(d?.message, /already used by features\.code_server \(its programme listens on 8443\)/);
  const desktop = '[features]\ndesktop = true\n\n[security.exceptions.desktop]\nreason = "gui"\n';
  t.same(
    await found(program('vnc', 'priority = 200\nport = 5900') + desktop, { ...x86, provides: ['feature:desktop'] }),
    ['E006@/programs/vnc/port'],
    'in a build that has the desktop',
  );
  const playwright = '[features]\nplaywright = true\n\n[security.exceptions.playwright]\nreason = "browser"\n';
  t.same(await found(`[observability]\nmetrics_port = 3100\n\n${playwright}`), ['E006@/observability/metrics_port']);
});

t.test('memory limit units', async (t) => {
  // Each with an agent budget that fits the box (E046).
  const agents = '[sandbox.limits]\nmemory = "128m"\n';
  t.same(await found(`[resources]\nmemory = "268435456"\n${agents}`), [], '256 MiB in bytes is enough');
  t.same(await found(`[resources]\nmemory = "262144k"\n${agents}`), [], '256 MiB in k is enough');
  t.same(await found(`[resources]\nmemory = "1g"\n${agents}`), []);
  t.same(await found(`[resources]\nmemory = "255m"\n${agents}`), ['E030@/resources/memory']);
  t.same(await found('[resources]\nmemory = "512"\n[sandbox.limits]\nmemory = "512"\n'), ['E030@/resources/memory'], 'a bare number is bytes');
});

t.test('agent memory budget within the box (E046)', async (t) => {
  t.same(await found(''), [], 'the defaults fit: 2g per agent in a 4g box');
  t.same(await found('[resources]\nmemory = "2g"\n'), [], 'equal to the box is allowed');
  t.same(await found('[resources]\nmemory = "2047m"\n'), ['E046@/sandbox/limits/memory'], 'the default agent budget in a smaller box');
  t.same(await found('[sandbox.limits]\nmemory = "4194305k"\n'), ['E046@/sandbox/limits/memory'], 'one KiB over, across units');
  const [d] = await diagnose('[resources]\nmemory = "1g"\n');
  t.match(d?.message, /sandbox\.limits\.memory = "2g" is more than the whole box has \(resources\.memory = "1g"\)/);
  t.match(d?.hint, /at most "1g"/);
});

t.test('critical slots and exceptions', async (t) => {
  t.same(await found('[adapters]\norchestrator = "off"\n'), [], 'the default critical orchestrator being off is not E024');
  const runtimes =
    '[features]\ngpu = "cuda"\nplaywright = true\n\n[security.exceptions.gpu-cuda]\nreason = "r"\nruntime = "nvidia"\n\n[security.exceptions.playwright]\nreason = "r"\nruntime = "nvidia"\n';
  t.same(await found(runtimes), [], 'the same runtime twice is one runtime');
  t.same(
    await found('[features]\ngpu = "cuda"\n\n[security.exceptions.gpu-rocm]\nreason = "r"\n'),
    ['E007@/features/gpu', 'E008@/security/exceptions/gpu-rocm'],
    'the gpu value picks the exception',
  );
  const caps = '[features]\nplaywright = true\n\n[security.exceptions.playwright]\nreason = "r"\ncap_add = ["SYS_ADMIN"]\ndevices = ["/dev/dri"]\n';
  t.same(
    await found(caps),
    ['E009@/security/exceptions/playwright/cap_add', 'E009@/security/exceptions/playwright/devices'],
    'cap_add and devices are each reported',
  );
});

t.test('external adapters: every slot needs its own endpoint', async (t) => {
  const ext = (adapters: string, integrations = '') => `${mesh}\n[adapters]\n${adapters}\n${integrations}`;
  t.same(
    await found(ext('beads = "external-http"\npods = "external-solid"\nevents = "external-http"\norchestrator = "external-stdio"')),
    ['E002@/integrations/beads/url', 'E002@/integrations/pods/url', 'E002@/integrations/events/url', 'E002@/integrations/orchestrator/command'],
    'http, solid and stdio endpoints',
  );
  t.same(
    await found(ext('memory = "external-pg"', '\n[integrations.memory]\nconnection_env = "PG_URL"\n'), { targetArch: 'x86_64', env: { PG_URL: 'x' } }),
    [],
    'connection_env is enough',
  );
  t.same(
    await found(ext('memory = "external-pg"', '\n[integrations.memory]\nconnection_env = "PG_URL"\n')),
    ['W008@/integrations/memory/connection_env'],
    'but it should be set',
  );
  t.same(
    await found(ext('orchestrator = "external-stdio"', '\n[integrations.orchestrator]\ncommand = "orchestrator"\n')),
    ['E032@/integrations/orchestrator/command'],
    'the orchestrator command is absolute',
  );
  t.same(await found(ext('orchestrator = "external-stdio"', '\n[integrations.orchestrator]\ncommand = "/opt/orch/bin/orchestrator"\n')), []);
  t.same(
    await found(
      '[mesh]\nmode = "host"\nallowed_pubkeys = ["3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d"]\n\n[adapters]\nevents = "external-http"\n\n[integrations.events]\nurl = "https://events.example.com"\n',
    ),
    [],
    'a mesh host may use external adapters',
  );
});

t.test('unused integrations', async (t) => {
  const unused = '[integrations.memory]\nconnection_file = "/run/secrets/pg"\n\n[integrations.orchestrator]\ncommand = "/opt/orch"\nargs = ["--stdio"]\n';
  t.same(await found(unused), ['W007@/integrations/memory/connection_file', 'W007@/integrations/orchestrator/command', 'W007@/integrations/orchestrator/args']);
  t.same(await found('[integrations.memory]\ndimension = 768\ntable = "vectors"\n'), [], 'table and dimension serve every memory adapter');
});

t.test('provider placeholders', async (t) => {
  t.same(await found('[providers.openai]\nenv_var = ""\n'), ['E022@/providers/openai/env_var'], 'empty on an enabled provider');
  t.same(await found('[providers.openai]\nenabled = false\n'), [], 'empty on a disabled provider is a placeholder for later');
  t.same(
    await found('[providers.aws]\nenv_var = "AKIAABCDEFGHIJKLMNOP"\nenabled = false\n'),
    ['E022@/providers/aws/env_var'],
    'an UPPER_SNAKE-looking AWS key is still a key',
  );
  const [d] = await diagnose('[providers.my-llm]\nenv_var = "my-llm-key"\n');
  t.match(d?.hint, /MY_LLM_API_KEY/, 'the hint proposes a well-formed name');
});

t.test('the reference manifest and an empty one are clean', async (t) => {
  const reference = readFileSync(fileURLToPath(new URL('../../../agentbox.toml', import.meta.url)), 'utf8');
  t.same(await found(reference), [], 'agentbox.toml');
  t.same(await found(reference, arm), [], 'agentbox.toml on aarch64');
  t.same(await found(''), [], 'the empty manifest');
});

t.test('rules are pure', async (t) => {
  // Every fixture's manifest comes back deep-frozen: a rule that mutated it would throw here.
  const manifests: Array<{ manifest: Manifest; context: RuleContext }> = [];
  for (const id of readdirSync(fixturesDir)) {
    let context = x86;
    try {
      context = JSON.parse(readFileSync(`${fixturesDir}/${id}/context.json`, 'utf8')) as RuleContext;
    } catch {
      // No context.json: the default context.
    }
    for (const file of ['bad.toml', 'good.toml']) {
      const r = await loadManifestSource(readFileSync(`${fixturesDir}/${id}/${file}`, 'utf8'), context);
      if (r.manifest)
        manifests.push({ manifest: r.manifest as unknown as Manifest, context: Object.freeze({ ...context, env: Object.freeze({ ...context.env }) }) });
    }
  }
  t.ok(manifests.length > 2 * 32, 'fixtures give frozen manifests');
  t.ok(Object.isFrozen(manifests[0]?.manifest.security), 'deeply frozen');
  const unstable: string[] = [];
  let findings = 0;
  for (const rule of ruleCatalogue) {
    for (const { manifest, context } of manifests) {
      const first = rule.check(manifest, context);
      const second = rule.check(manifest, context);
      findings += first.length;
      if (JSON.stringify(first) !== JSON.stringify(second)) unstable.push(rule.id);
    }
  }
  t.ok(findings >= ruleCatalogue.length, 'the rules found something on the frozen manifests');
  t.same(unstable, [], 'every rule answers twice the same on every frozen fixture manifest');
});

t.test('no rule reads the host: no process.env or process.arch in rule sources', async (t) => {
  const files = readdirSync(rulesDir).filter((f) => f.endsWith('.ts'));
  t.ok(files.length > ruleCatalogue.length, 'rule sources found');
  for (const f of files) {
    const raw = readFileSync(`${rulesDir}/${f}`, 'utf8');
    // rule.ts documents the contract ("rules never read `process.env`"): only its code is scanned.
    const source = f === 'rule.ts' ? raw.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '') : raw;
    t.notMatch(source, /process\s*\.\s*(env|arch|platform)|process\s*\[|globalThis\.process/, `${f} does not read the host`);
    t.notMatch(source, /\bos\.(arch|platform)\b|from 'node:os'|from 'os'/, `${f} does not ask the OS`);
  }
});

t.test('parts this build does not provide are refused, with why and what instead (E036)', async (t) => {
  const desktop = '[features]\ndesktop = true\n\n[security.exceptions.desktop]\nreason = "gui"\n';
  const mirror = '[features]\ntelegram_mirror = true\n\n[security.exceptions.telegram-mirror]\nreason = "chat"\n';
  const relay = '[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\n';
  t.same(await found(desktop), ['E036@/features/desktop']);
  t.same(await found(mirror), ['E036@/features/telegram_mirror']);
  const [m] = await diagnose(mirror);
  t.match(m?.message, /^features\.telegram_mirror = true asks for something this build does not provide: .*agentbox-telegram-mirror/);
  const [f] = await diagnose(desktop);
  t.match(f?.hint, /^set features\.desktop = false, and .*features\.playwright = true/);
  t.same(await found(desktop, { ...x86, provides: ['feature:desktop'] }), [], 'a build that provides the part accepts it');
  t.same(await found(relay), [], 'likewise the relay');
  const codeServer = '[features]\ncode_server = true\n\n[security.exceptions.code-server]\nreason = "editor"\n';
  t.same(await found(codeServer), [], 'a part this build has is accepted');
  t.same(await found('[sovereign_mesh.relay]\nport = 7000\nallowed_kinds = [1]\n'), [], 'relay keys without enabling the relay are not refused');
});

t.test('mesh host keys', async (t) => {
  const key = '3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d';
  const host = (lines: string) => `[mesh]\nmode = "host"\nallowed_pubkeys = ["${key}"]\n${lines}`;
  t.same(await found(host('registry = "postgres"\n')), ['E039@/mesh/registry_connection_env'], 'postgres without a connection');
  t.same(
    await found(host('registry = "postgres"\nregistry_connection_env = "PG"\nregistry_connection_file = "/run/secrets/pg"\n')),
    ['E039@/mesh/registry_connection_file'],
    'both sources',
  );
  t.same(await found(host('registry = "postgres"\nregistry_connection_file = "/run/secrets/pg"\n')), [], 'a file alone');
  t.same(await found(host('registry_connection_env = "PG"\n')), [], 'connection keys beside sqlite are not an error on a host');
  t.same(
    await found(
      `[mesh]\nmode = "client"\nhost_url = "https://mesh.example.com"\nallowed_pubkeys = ["${key}"]\nregistry = "postgres"\nregistry_connection_env = "PG"\nregistry_connection_file = "/run/secrets/pg"\n`,
    ),
    ['W014@/mesh/allowed_pubkeys', 'W014@/mesh/registry', 'W014@/mesh/registry_connection_env', 'W014@/mesh/registry_connection_file'],
    'a client reads none of the host keys (and E039 is a host rule)',
  );
  t.same(await found('[mesh]\nmode = "host"\n'), ['W015@/mesh/allowed_pubkeys'], 'a host nobody may join');
  t.same(
    await found(`[mesh]\nmode = "host"\nallowed_pubkeys = ["npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6wq"]\n`),
    ['E037@/mesh/allowed_pubkeys/0'],
    'a member npub with a bad checksum',
  );
  t.same(
    await found('[mesh]\nmode = "client"\nhost_url = "https://mesh.example.com"\nheartbeat_interval_sec = 2\n'),
    [],
    "a client follows its host's interval: E020 is a host rule",
  );
  t.same(await found(host('host_url = "https://mesh.example.com"\n')), ['W005@/mesh/host_url'], 'a host does not register anywhere');
});

t.test('the sandbox-namespaces exception: audit, use, Kubernetes', async (t) => {
  const exception = '[security.exceptions.sandbox-namespaces]\nreason = "bubblewrap per agent"\n';
  const acked = `[security]\naudit_acknowledged = true\n\n${exception}`;
  const at = '/security/exceptions/sandbox-namespaces';
  t.same(await found(exception), [`E047@${at}`], 'unacknowledged: E047 only');
  t.same(await found(acked), [], 'acknowledged: clean, and W012 counts it as something to acknowledge');
  t.same(await found(`${acked}\n[sandbox]\nnamespaces = "off"\n`), [`E008@${at}`], 'namespaces off: an exception for nothing (E008)');
  t.same(await found(`${acked}\n[sandbox]\nenabled = false\n`), [`E008@${at}`, 'W016@/sandbox/enabled'], 'the sandbox off: E008 too (W016 as always)');
  t.same(
    await found('[sandbox]\nnamespaces = "required"\n'),
    [],
    'namespaces without the exception is allowed (agents run under the launcher alone in a container)',
  );
  const k8s: RuleContext = { ...x86, target: 'kubernetes' };
  const auto = await diagnose(acked, k8s);
  t.same(
    auto.map((d) => `${d.id}@${d.pointer}`),
    [`W019@${at}`],
    'on Kubernetes: W019',
  );
  t.match(auto[0]!.message, /under the launcher alone/, 'auto: agents run under the launcher alone');
  const required = await diagnose(`${acked}\n[sandbox]\nnamespaces = "required"\n`, { ...x86, target: 'agent-sandbox' });
  t.match(required[0]!.message, /every agent spawn is then refused/, 'required: spawns are refused, and the warning says so');
  t.same(await found(`${acked}\n[sandbox]\nnamespaces = "off"\n`, k8s), [`E008@${at}`], 'no W019 for an exception that applies nowhere');
});

t.test('E055: a profile may lower the entry budget, never raise it; the schema caps it at a million', async (t) => {
  const profile = (entries: number) => `[sandbox.limits]\nentries = 50000\n\n[agents.profiles.builder]\ncommand = "make"\nlimits = { entries = ${entries} }\n`;
  t.same(await found(profile(50_000)), [], 'equal: fine');
  t.same(await found(profile(50_001)), ['E055@/agents/profiles/builder/limits/entries']);
  const d = (await diagnose(profile(60_000)))[0];
  t.match(d?.message, /limits\.entries = 60000 is above sandbox\.limits\.entries \(50000\)/);
  const over = await loadManifestSource('[sandbox.limits]\nentries = 1000001\n', x86);
  t.match(
    over.diagnostics.find((x) => x.source !== 'rule'),
    { pointer: '/sandbox/limits/entries' },
    'above 1,000,000: refused by the schema (a capture of more would pass its thread heap)',
  );
});
