// Nix and TypeScript read schema/box-facts.json the same way: runtime paths, reserved programme
// names, the features' fixed ports, the baseline's protected paths, the http slots, and the start
// order depends_on gives.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { nixInstantiate, repoRoot } from './helpers.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { reservedProgramNames } from '../../management-api/src/box-facts.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { portUses } from '../../management-api/src/manifest/rules/helpers/ports.js';
import { startPriorities } from '../../management-api/src/manifest/rules/helpers/graph.js';
import { shadowedBaselinePath } from '../../management-api/src/manifest/rules/helpers/exceptions.js';
import { HTTP_SLOTS } from '../../management-api/src/manifest/rules/helpers/slots.js';

type Test = Parameters<Parameters<typeof t.test>[0]>[0];

/** nix-instantiate of `expr`, parsed; fails the test with Nix's stderr otherwise. */
function nix<T>(t: Test, expr: string): T {
  const r = nixInstantiate(expr);
  t.equal(r.code, 0, 'nix evaluates', { stderr: r.stderr });
  return JSON.parse(r.stdout || 'null') as T;
}

t.test('runtime paths: the same layout, in the image and re-rooted', async (t) => {
  t.same(nix(t, '(import ./lib).paths.runtimePaths { }'), { ...runtimePaths({}) });
  t.same(nix(t, '(import ./lib).paths.runtimePaths { root = "/home/me/box"; }'), { ...runtimePaths({ AGENTBOX_ROOT: '/home/me/box' }) });
});

t.test('reserved programme names and protected paths', async (t) => {
  t.same(nix<string[]>(t, '(import ./lib).programs.boxProgramNames').sort(), [...reservedProgramNames].sort());
  const protectedPaths = nix<string[]>(t, '(import ./lib).baseline.protectedPaths');
  for (const p of protectedPaths) t.equal(shadowedBaselinePath(p), p, `E029 protects ${p}`);
});

t.test('every feature: the ports its Nix programmes listen on are the ones the rules reserve', async (t) => {
  const table = nix<Record<string, { setting: string }>>(t, 'builtins.mapAttrs (_: f: { inherit (f) setting; }) ((import ./lib).features.featureTable { })');
  for (const [name, { setting }] of Object.entries(table)) {
    const source = `${setting.replace(/^features\./, '[features]\n')}\n[security.exceptions.${name}]\nreason = "r"\n`;
    const { manifest } = await loadManifestSource(source, { targetArch: 'x86_64', env: {} });
    t.ok(manifest, `${name}: ${setting} is schema-valid`);
    const nixPorts = nix<number[]>(
      t,
      `map (p: p.port) (builtins.filter (p: p.origin == "feature:${name}") ((import ./lib).programsFor { manifest = (import ./lib).loadManifest { text = ${JSON.stringify(source)}; }; }))`,
    ).filter((p) => p !== 0);
    const tsPorts = portUses(manifest!)
      .filter((u) => u.label !== undefined)
      .map((u) => u.port);
    t.same(tsPorts, nixPorts, `${name}: fixed ports ${nixPorts.join(', ') || 'none'}`);
  }
});

t.test("the http slots whose tokens compose passes through are the rules' HTTP_SLOTS", async (t) => {
  const source = `${HTTP_SLOTS.map((s) => `[integrations.${s}]\ntoken_env = "TOKEN_OF_${s.toUpperCase()}"\n`).join('')}[integrations.memory]\nconnection_env = "PG_URL"\n`;
  const env = nix<string[]>(
    t,
    `((import ./lib).composeConfig { manifest = (import ./lib).loadManifest { text = ${JSON.stringify(source)}; }; image = "x"; }).services.agentbox.environment`,
  );
  t.same(env, [...HTTP_SLOTS.map((s) => `TOKEN_OF_${s.toUpperCase()}`), 'PG_URL'].sort());
});

t.test('depends_on: Nix and the rules derive the same start priorities', async (t) => {
  const manifests = readdirSync(path.join(repoRoot, 'tests/fixtures/manifests'))
    .filter((f) => f.endsWith('.toml'))
    .map((f) => readFileSync(path.join(repoRoot, 'tests/fixtures/manifests', f), 'utf8'));
  const program = (name: string, priority: number, deps: string[]) =>
    `[programs.${name}]\ncommand = "/bin/${name}"\npriority = ${priority}\ndepends_on = ${JSON.stringify(deps)}\n`;
  manifests.push(
    program('db', 700, []) + program('queue', 300, ['db']) + program('worker', 200, ['queue', 'db']) + program('web', 900, ['worker']),
    program('a', 500, ['b', 'c']) + program('b', 600, ['c']) + program('c', 650, []) + program('d', 100, ['a', 'missing', 'd']),
  );
  for (const source of manifests) {
    const { manifest } = await loadManifestSource(source, { targetArch: 'x86_64', env: {}, provides: ['program:relay'] });
    if (!manifest) continue;
    const fromNix = nix<Record<string, number>>(
      t,
      `(import ./lib).startPriorities { programs = ((import ./lib).loadManifest { text = ${JSON.stringify(source)}; }).programs; }`,
    );
    t.same(Object.fromEntries(startPriorities(manifest)), fromNix, `programmes ${Object.keys(fromNix).join(', ') || '(none)'}`);
  }
  const cycle = nixInstantiate(
    `(import ./lib).startPriorities { programs = ((import ./lib).loadManifest { text = ${JSON.stringify(program('a', 500, ['b']) + program('b', 500, ['a']))}; }).programs; }`,
  );
  t.not(cycle.code, 0, 'a cycle is refused by Nix');
  t.match(cycle.stderr, /start-order\.startPriorities: programmes a, b depend on each other in a cycle \(rule E018\)/);
});
