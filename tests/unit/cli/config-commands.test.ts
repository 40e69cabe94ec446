// The `agentbox config` commands and `init`, run as the installed bin: exit codes, output, --help.
import t from 'tap';
import { writeFileSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentbox } from '../../helpers/cli.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-cli-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

t.test('validate: the reference manifest and an empty file exit 0', async (t) => {
  const ref = runAgentbox(['config', 'validate', 'agentbox.toml']);
  t.equal(ref.code, 0, ref.stderr);
  t.match(ref.stdout, /agentbox\.toml: valid/);
  const empty = runAgentbox(['config', 'validate', file('empty.toml', '')]);
  t.equal(empty.code, 0, empty.stderr);
});

t.test('validate: defaults to ./agentbox.toml', async (t) => {
  const r = runAgentbox(['config', 'validate'], { cwd: dir });
  t.equal(r.code, 2, 'no agentbox.toml in the temp dir');
  t.match(r.stderr, /agentbox\.toml: error IO unreadable-file: cannot read the manifest: no such file/);
  t.match(r.stderr, /agentbox init/);
});

t.test('validate: malformed TOML exits 2 naming line and column', async (t) => {
  const r = runAgentbox(['config', 'validate', file('syntax.toml', '[api]\nport = 9090\n\n[mesh\nmode = "host"\n')]);
  t.equal(r.code, 2);
  t.match(r.stderr, /syntax\.toml:4:\d+: error TOML toml-syntax/);
  t.match(r.stderr, /\| 4:\s+\[mesh/, 'a code frame is shown');
  t.notMatch(r.stderr, /at .*\.js:\d+/, 'no stack trace');
});

t.test('validate: a type error or an unknown key exits 1 naming the key path and its line', async (t) => {
  const r = runAgentbox(['config', 'validate', file('types.toml', '[api]\nport = "ninety"\n\n[features]\nplaywrite = true\n')]);
  t.equal(r.code, 1);
  t.match(r.stderr, /types\.toml:2:1: error SCHEMA wrong-type at api\.port/);
  t.match(r.stderr, /types\.toml:5:1: error SCHEMA unknown-key at features\.playwrite/);
  t.match(r.stderr, /did you mean `playwright`\?/);
});

t.test('validate --json: documented shape', async (t) => {
  const r = runAgentbox(['config', 'validate', '--json', file('json.toml', '[api]\nport = 0\n')]);
  t.equal(r.code, 1);
  const report = JSON.parse(r.stdout) as Record<string, unknown>;
  t.same(Object.keys(report).sort(), ['diagnostics', 'errors', 'exitCode', 'file', 'sha256', 'target', 'valid', 'warnings']);
  t.equal(report.target, 'compose', 'the default target');
  t.equal(report.valid, false);
  t.equal(report.exitCode, 1);
  t.equal(report.sha256, null);
  const d = (report.diagnostics as Array<Record<string, unknown>>)[0]!;
  t.match(d, { id: 'SCHEMA', alias: 'out-of-range', severity: 'error', source: 'schema', pointer: '/api/port', line: 2, column: 1 });
  const ok = JSON.parse(runAgentbox(['config', 'validate', '--json', 'agentbox.toml']).stdout) as Record<string, unknown>;
  t.equal(ok.valid, true);
  t.match(ok.sha256, /^[0-9a-f]{64}$/);
});

t.test('validate: usage errors exit 2 with the usage text', async (t) => {
  const r = runAgentbox(['config', 'validate', 'a.toml', 'b.toml']);
  t.equal(r.code, 2);
  t.match(r.stderr, /Usage: agentbox config validate/);
  const flag = runAgentbox(['config', 'validate', '--nope']);
  t.equal(flag.code, 2);
  t.match(flag.stderr, /^agentbox config validate: unknown option --nope \(agentbox config validate --help lists the options\)$/m);
  const arch = runAgentbox(['config', 'validate', '--target-arch', 'sparc', 'agentbox.toml']);
  t.equal(arch.code, 2);
  t.match(arch.stderr, /--target-arch must be x86_64 or aarch64/);
});

t.test('show prints the normalized manifest and its hash', async (t) => {
  const r = runAgentbox(['config', 'show', file('show.toml', '[api]\nport = 9999\n')]);
  t.equal(r.code, 0, r.stderr);
  const m = JSON.parse(r.stdout) as { api: { port: number; bind: string }; adapters: { memory: string } };
  t.equal(m.api.port, 9999);
  t.equal(m.api.bind, '127.0.0.1');
  t.equal(m.adapters.memory, 'local-ruvector');
  t.match(r.stderr, /^sha256 [0-9a-f]{64}$/m);
  const bad = runAgentbox(['config', 'show', file('show-bad.toml', '[api]\nport = true\n')]);
  t.equal(bad.code, 1);
  t.equal(bad.stdout, '');
});

t.test('every command answers --help with exit 0', async (t) => {
  for (const args of [
    ['--help'],
    ['config', '--help'],
    ['config', 'validate', '--help'],
    ['config', 'show', '--help'],
    ['config', 'explain', '--help'],
    ['init', '--help'],
    ['status', '--help'],
    ['health', '--help'],
    ['doctor', '--help'],
    ['events', 'verify', '--help'],
  ]) {
    const r = runAgentbox(args);
    t.equal(r.code, 0, args.join(' '));
    t.match(r.stdout, /Usage: agentbox/, args.join(' '));
  }
  const none = runAgentbox([]);
  t.equal(none.code, 2, 'no command is a usage error');
  const unknown = runAgentbox(['frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown command "frobnicate"/);
  const unknownSub = runAgentbox(['snapshot', 'frobnicate']);
  t.equal(unknownSub.code, 2, 'an unknown subcommand of a group is a usage error');
  t.match(
    unknownSub.stderr,
    /^agentbox snapshot: unknown subcommand "frobnicate"\n\nUsage: agentbox snapshot <subcommand>/,
    'said first, then the subcommands',
  );
  t.match(runAgentbox(['snapshot']), { code: 2, stderr: /^Usage: agentbox snapshot <subcommand>/ }, 'the group alone: its subcommands');
  t.match(
    runAgentbox(['snapshott', 'ls']),
    { code: 2, stderr: /^agentbox: unknown command "snapshott ls"; did you mean "agentbox snapshot"\?\n\nUsage: agentbox <command>/ },
    'a typo: the command meant, then the usage',
  );
  t.match(runAgentbox(['stop', 'w1']), { code: 2, stderr: /unknown command "stop w1"; did you mean "agentbox kill"\?/ }, "a container user's word: ours");
  t.match(runAgentbox(['snapshot', 'list']), { code: 2, stderr: /unknown subcommand "list"; did you mean "agentbox snapshot ls"\?/ }, 'in a group too');
  t.match(unknown.stderr, /^agentbox: unknown command "frobnicate"\n/, 'nothing close: no guess');
  t.match(runAgentbox(['--version']).stdout, /^agentbox \d+\.\d+\.\d+/);
});

t.test('explain: unknown ids exit 2 with a suggestion', async (t) => {
  const r = runAgentbox(['config', 'explain', 'E99999']);
  t.equal(r.code, 2);
  t.match(r.stderr, /no rule "E99999"/);
  for (const retired of ['E021', 'seal-timeout-bounds']) {
    const gone = runAgentbox(['config', 'explain', retired]);
    t.equal(gone.code, 2, `${retired} is retired`);
    t.match(gone.stderr, /E021 \(seal-timeout-bounds\) is retired: the schema itself bounds bootstrap\.seal_timeout_sec/);
  }
  const list = runAgentbox(['config', 'explain', '--list', '--json']);
  t.equal(list.code, 0);
  t.ok(Array.isArray(JSON.parse(list.stdout)));
});

t.test('init writes a starter for each mode that validates cleanly, and never overwrites silently', async (t) => {
  for (const mode of ['standalone', 'client', 'host']) {
    const target = path.join(dir, `init-${mode}.toml`);
    const w = runAgentbox(['init', '--mode', mode, '--file', target]);
    t.equal(w.code, 0, w.stderr);
    const text = readFileSync(target, 'utf8');
    t.match(text, /^#:schema .*schema\/agentbox\.schema\.json\n/, 'starts with the #:schema directive');
    const v = runAgentbox(['config', 'validate', '--json', target]);
    const report = JSON.parse(v.stdout) as { exitCode: number; diagnostics: unknown[] };
    t.equal(report.exitCode, 0, mode);
    // A host starter cannot know its members' keys: W015 says to list them, and nothing else is reported.
    t.same(
      (report.diagnostics as Array<{ id: string }>).map((d) => d.id),
      mode === 'host' ? ['W015'] : [],
      `${mode} starter has no other warnings`,
    );
    const shown = JSON.parse(runAgentbox(['config', 'show', target]).stdout) as { mesh: { mode: string } };
    t.equal(shown.mesh.mode, mode);
  }
  const target = path.join(dir, 'init-standalone.toml');
  writeFileSync(target, 'keep me');
  const again = runAgentbox(['init', '--file', target]);
  t.equal(again.code, 2);
  t.match(again.stderr, /already exists; pass --force/);
  t.equal(readFileSync(target, 'utf8'), 'keep me', 'nothing lost');
  t.equal(runAgentbox(['init', '--file', target, '--force']).code, 0);
  t.equal(runAgentbox(['init', '--mode', 'mars']).code, 2);
});

t.test('the #:schema directive of the reference manifest resolves to the schema', async (t) => {
  const first = readFileSync(path.join(process.cwd(), 'agentbox.toml'), 'utf8').split('\n')[0]!;
  const ref = first.replace('#:schema ', '');
  const schema = JSON.parse(readFileSync(path.resolve(process.cwd(), ref), 'utf8')) as { $schema: string };
  t.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
});
