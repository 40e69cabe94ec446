// [agents] packages and [agents] npm through the flake, evaluated offline with the stub nixpkgs
// (nothing fetched or built): the packages join the image by attribute, the npm CLIs become one
// package built from agents.lock.json reduced to the system's platform packages, and a missing
// attribute, a missing lock or a stale one stops the evaluation with an error naming it.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { currentSystem, nixFlake, nixFlakeEval, repoRoot } from './helpers.js';
import { flakeCopy } from './flake-copy.js';

const fixture = (f: string) => readFileSync(path.join(repoRoot, 'tests/fixtures/agents', f), 'utf8');
const manifest = fixture('agentbox.toml');
const lock = fixture('agents.lock.json');

interface Seen {
  names: string[];
  lockKeys: string[];
  resolved: Record<string, string | null>;
  dependencies: Record<string, string>;
  pname: string;
  dontStrip: boolean;
  installPhase: string;
}

const apply = `ps: builtins.mapAttrs (system: p:
  let
    contents = p.image.recorded.contents;
    clis = builtins.head (builtins.filter (c: (c.name or "") == "agentbox-agent-clis") contents);
    deps = clis.recorded.npmDeps.recorded;
  in {
    names = map (c: c.name or "") contents;
    lockKeys = builtins.attrNames deps.packageLock.packages;
    resolved = builtins.mapAttrs (k: e: e.resolved or null) deps.packageLock.packages;
    dependencies = deps.package.dependencies;
    inherit (clis.recorded) pname dontStrip installPhase;
  }) ps`;

t.test('the packages and the npm CLIs of [agents] reach the image of each system', async (t) => {
  const seen = nixFlakeEval<Record<string, Seen>>('.#packages', { flake: flakeCopy(manifest, { 'agents.lock.json': lock }), apply });
  for (const [system, cpu, other] of [
    ['x86_64-linux', 'x64', 'arm64'],
    ['aarch64-linux', 'arm64', 'x64'],
  ] as const) {
    const s = seen[system]!;
    for (const name of ['ripgrep', 'pytest', 'agentbox-agent-clis', 'git', 'curl', 'gnugrep', 'gnused', 'findutils', 'python3'])
      t.ok(s.names.includes(name), `${system}: the image carries ${name}`);
    t.same(s.dependencies, { '@anthropic-ai/claude-code': '2.1.332', '@openai/codex': '0.171.0' }, `${system}: the project depends on exactly the specs`);
    t.ok(s.lockKeys.includes(`node_modules/@anthropic-ai/claude-code-linux-${cpu}`), `${system}: Claude Code's linux-${cpu} binary package`);
    t.ok(s.lockKeys.includes(`node_modules/@openai/codex-linux-${cpu}`), `${system}: Codex's linux-${cpu} binary package`);
    t.notOk(
      s.lockKeys.some((k) => /darwin|win32|musl/.test(k) || k.endsWith(`linux-${other}`)),
      `${system}: no other platform's binaries are fetched: ${s.lockKeys.join(', ')}`,
    );
    t.equal(
      s.resolved['node_modules/@openai/codex-linux-x64'] ?? s.resolved['node_modules/@openai/codex-linux-arm64'],
      `https://registry.npmjs.org/@openai/codex/-/codex-0.171.0-linux-${cpu}.tgz`,
      `${system}: an alias resolves to its real package's tarball`,
    );
    t.ok(
      Object.entries(s.resolved).every(([k, r]) => k === '' || r?.startsWith('https://registry.npmjs.org/')),
      `${system}: every package has a registry tarball URL (fetched by its integrity)`,
    );
    t.equal(s.pname, 'agentbox-agent-clis');
    t.equal(s.dontStrip, true, 'a Bun-compiled binary keeps its appended program');
    t.match(
      s.installPhase,
      /ln -s "\.\.\/lib\/agentbox\/agent-clis\/node_modules\/\$pkg\/\$file" "\$out\/bin\/\$cmd"/,
      "each listed package's commands in bin/",
    );
  }
});

t.test('a clear error for a missing attribute, a missing lock, a stale lock', async (t) => {
  const attr = `.#packages.${currentSystem}.image`;
  // The image's derivation, as a build would instantiate it (the contents, their sources and locks).
  const names = 'i: builtins.seq i.drvPath (map (c: c.name or "") i.recorded.contents)';
  const cases: Array<[string, string, Record<string, string>, RegExp]> = [
    [
      'an attribute nixpkgs lacks',
      manifest.replace('"ripgrep"', '"nosuchtool"'),
      { 'agents.lock.json': lock },
      /nixpkgs has no nosuchtool \(named in \[agents\] packages of the manifest\)/,
    ],
    ['no lock', manifest, {}, /agents\.lock\.json is missing: run `agentbox agents lock`/],
    [
      'a stale lock',
      manifest.replace('@openai/codex@0.171.0', '@openai/codex@0.172.0'),
      { 'agents.lock.json': lock },
      /does not match \[agents\] npm \(@openai\/codex\): run `agentbox agents lock`/,
    ],
  ];
  for (const [what, text, extra, error] of cases) {
    const r = nixFlake(['eval', '--json', attr, '--apply', names], { flake: flakeCopy(text, extra) });
    t.not(r.code, 0, `${what}: the evaluation fails`);
    t.match(r.stderr, error, `${what}: the error says so`);
  }
  const none = nixFlake(['eval', '--json', attr, '--apply', names], { flake: flakeCopy('[agents]\npackages = ["ripgrep"]\n') });
  t.equal(none.code, 0, `without [agents] npm no lock is needed: ${none.stderr}`);
  t.notOk((JSON.parse(none.stdout || '[]') as string[]).includes('agentbox-agent-clis'), 'and no CLI package is built');
});
