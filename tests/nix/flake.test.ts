// The flake, evaluated and partly built offline with stub inputs (tests/nix/stub-*): its outputs
// for both systems, what the image builders receive (following the manifest), the checks
// (lib tests, golden files, compose, the TypeScript validator), and an invalid manifest failing
// the build. The stub builders run with the host's /bin/sh; nothing is fetched.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { renderManifest, packageVersion } from '../../scripts/cli/render-box.js';
import { currentSystem, nixFlake, nixFlakeEval, repoRoot } from './helpers.js';
import { flakeCopy, stubApp } from './flake-copy.js';

const systems = ['x86_64-linux', 'aarch64-linux'];
const ctx = { targetArch: 'x86_64' as const, env: {} };

interface ImageConfig {
  User: string;
  Entrypoint: string[];
  Env: string[];
  ExposedPorts: Record<string, object>;
  Labels: Record<string, string>;
  WorkingDir: string;
}
interface Recorded {
  image: { name: string; tag: string; config: ImageConfig; contents: string[]; fakeRootCommands: string };
  n2c: { name: string; tag: string; config: ImageConfig; copyToRoot: unknown[] };
  app: { pname: string; version: string; unresolved: number; packages: number; installPhase: string; factsInSrc: boolean };
  launcher: { pname: string; buildPhase: string; installPhase: string; buildInputs: string[] };
}

/** What the stub builders recorded, for every system, in one evaluation. */
function recorded(flake?: string): Record<string, Recorded> {
  return nixFlakeEval<Record<string, Recorded>>('.#packages', {
    ...(flake ? { flake } : {}),
    apply: `ps: builtins.mapAttrs (system: p: {
      image = { inherit (p.image.recorded) name tag config contents fakeRootCommands; };
      n2c = { inherit (p.image-n2c.recorded) name tag config copyToRoot; };
      launcher = { inherit (p.sandbox-launcher.recorded) pname buildPhase installPhase; buildInputs = map toString p.sandbox-launcher.recorded.buildInputs; };
      app = let a = p.management-api.recorded; lock = a.npmDeps.recorded.packageLock.packages; in {
        inherit (a) pname version installPhase;
        factsInSrc = builtins.pathExists (a.src + "/schema/box-facts.json");
        packages = builtins.length (builtins.attrNames lock);
        unresolved = builtins.length (builtins.filter (k: !(lock.\${k} ? resolved)) (builtins.attrNames lock));
      };
    }) ps`,
  });
}

t.test('flake.lock matches flake.nix (no update needed) and pins every input', async (t) => {
  const r = spawnSync(
    'nix',
    [
      '--extra-experimental-features',
      'nix-command flakes',
      '--option',
      'substituters',
      '',
      '--option',
      'build-users-group',
      '',
      'flake',
      'metadata',
      '--json',
      '--no-update-lock-file',
      repoRoot,
    ],
    { encoding: 'utf8' },
  );
  t.equal(r.status, 0, 'exit code 0', { stderr: r.stderr });
  const lock = JSON.parse(readFileSync(path.join(repoRoot, 'flake.lock'), 'utf8')) as {
    nodes: Record<string, { locked?: { narHash?: string; rev?: string }; inputs?: Record<string, unknown> }>;
  };
  for (const input of ['nixpkgs', 'nix2container', 'flake-utils', 'systems']) {
    t.match(lock.nodes[input]?.locked?.narHash, /^sha256-/, `${input} has a narHash`);
    t.match(lock.nodes[input]?.locked?.rev, /^[0-9a-f]{40}$/, `${input} has a rev`);
  }
  t.same(lock.nodes['nix2container']?.inputs, { nixpkgs: ['nixpkgs'] }, 'nix2container follows our nixpkgs');
  t.same(lock.nodes['flake-utils']?.inputs, { systems: 'systems' });
});

t.test('nix flake check evaluates every output for both systems', async (t) => {
  const r = nixFlake(['flake', 'check', '--no-build', '.#']);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const show = nixFlake(['flake', 'show', '--json', '.#']);
  t.equal(show.code, 0, 'exit code 0', { stderr: show.stderr });
  const outputs = JSON.parse(show.stdout) as Record<string, Record<string, Record<string, unknown>>>;
  for (const system of systems) {
    t.same(
      Object.keys(outputs['packages']?.[system] ?? {}).sort(),
      ['compose', 'default', 'image', 'image-n2c', 'k8s', 'management-api', 'sandbox-launcher', 'supervisord-conf'],
      `packages.${system}`,
    );
    t.same(Object.keys(outputs['checks']?.[system] ?? {}).sort(), ['compose', 'golden', 'lib-tests', 'manifest'], `checks.${system}`);
    t.same(Object.keys(outputs['apps']?.[system] ?? {}).sort(), ['render', 'validate'], `apps.${system}`);
    t.ok(outputs['devShells']?.[system]?.['default'], `devShells.${system}.default`);
    t.ok(outputs['formatter']?.[system], `formatter.${system}`);
  }
});

t.test('the image builders receive the config the manifest describes', async (t) => {
  const rec = recorded();
  const { rendered, validation } = await renderManifest({ manifestFile: path.join(repoRoot, 'agentbox.toml'), outDir: repoRoot, context: ctx });
  t.ok(rendered);
  const expected = JSON.parse(rendered!.files['image-config.json']) as { name: string; tag: string; config: ImageConfig };
  const withoutHash = (c: ImageConfig) => ({ ...c, Env: c.Env.filter((e) => !e.startsWith('AGENTBOX_IMAGE_HASH=')) });
  for (const system of systems) {
    const { image, n2c, app } = rec[system]!;
    t.equal(image.name, expected.name, `${system}: name`);
    t.equal(image.tag, expected.tag, `${system}: tag`);
    t.same(withoutHash(image.config), withoutHash(expected.config), `${system}: the config agentbox render writes (but the content hash)`);
    t.same(n2c.config, image.config, `${system}: nix2container gets the same config`);
    t.equal(image.config.User, '1000:1000');
    t.same(Object.keys(image.config.ExposedPorts), ['9090/tcp', '9091/tcp']);
    t.ok(image.config.Env.includes(`AGENTBOX_MANIFEST_SHA256=${validation.sha256}`), 'the manifest sha256 of the TypeScript loader');
    t.match(
      image.config.Env.find((e) => e.startsWith('AGENTBOX_IMAGE_HASH=')),
      /^AGENTBOX_IMAGE_HASH=[0-9a-f]{64}$/,
    );
    t.same(image.config.Entrypoint, ['/bin/tini', '-s', '--', '/opt/agentbox/bin/agentbox-entrypoint']);
    for (const name of [
      'nodejs-20',
      'supervisor',
      'tini',
      'bash',
      'coreutils',
      'bubblewrap',
      'cacert',
      'agentbox',
      'agentbox-etc',
      'passwd',
      'group',
      'nsswitch.conf',
    ]) {
      t.ok(
        image.contents.some((p) => p.endsWith(`-${name}`)),
        `${system}: contents has ${name}`,
      );
    }
    t.match(image.fakeRootCommands, /chown 1000:1000 var\/lib\/agentbox workspace/);
    t.equal(app.pname, 'agentbox');
    t.equal(app.version, await packageVersion());
    t.equal(app.unresolved, 1, 'importNpmLock gets a resolved URL for every package (all but the root entry)');
    t.ok(app.packages > 100);
    t.ok(app.factsInSrc, `${system}: the application's sources hold schema/box-facts.json`);
    t.match(
      app.installPhase,
      /cp -r dist node_modules package\.json schema lib "\$app\/"/,
      `${system}: the application carries schema/ (the facts lib/ reads) beside lib/`,
    );
    const { launcher } = rec[system]!;
    t.equal(launcher.pname, 'agentbox-sandbox');
    t.match(
      launcher.buildPhase,
      /\$CC -O2 -static .*-Werror -o agentbox-sandbox \/nix\/store\/[^ ]+\/management-api\/src\/sandbox\/launcher\/\*\.c/,
      `${system}: the launcher is compiled from its C files with the stdenv compiler`,
    );
    t.match(launcher.buildInputs.join(' '), /glibc-static/, `${system}: linked statically, against glibc's static archive`);
    t.match(
      app.installPhase,
      /install -D -m 0755 \/nix\/store\/[^ ]+\/bin\/agentbox-sandbox "\$app\/dist\/native\/agentbox-sandbox"/,
      `${system}: the application carries the launcher where the orchestrator finds it`,
    );
  }
  t.not(
    rec['x86_64-linux']!.image.config.Env.find((e) => e.startsWith('AGENTBOX_IMAGE_HASH')),
    rec['aarch64-linux']!.image.config.Env.find((e) => e.startsWith('AGENTBOX_IMAGE_HASH')),
    'the image hash depends on the (per-system) contents',
  );
});

t.test('a different manifest: new metrics port, a feature and its packages reach the image', async (t) => {
  const manifest = `${readFileSync(path.join(repoRoot, 'agentbox.toml'), 'utf8')
    .replace('# metrics_port = 9091', 'metrics_port = 9555')
    .replace('playwright = false', 'playwright = true')
    .replace('name = "agentbox"', 'name = "box-b"')}\n[security.exceptions.playwright]\nreason = "browser tests"\ntmpfs = ["/dev/shm"]\n`;
  const rec = recorded(flakeCopy(manifest))[currentSystem]!;
  t.equal(rec.image.name, 'agentbox/box-b');
  t.same(Object.keys(rec.image.config.ExposedPorts), ['3100/tcp', '9090/tcp', '9555/tcp']);
  t.equal(rec.image.config.Labels['dev.agentbox.features'], 'playwright');
  t.ok(rec.image.config.Env.includes('AGENTBOX_IMAGE_NAME=agentbox/box-b'));
  t.ok(
    rec.image.contents.some((p) => p.endsWith('-playwright-test')),
    'the feature packages are in the image',
  );
  t.ok(rec.image.contents.some((p) => p.endsWith('-playwright-browsers')));
  const ts = await loadManifestSource(manifest, ctx);
  t.ok(rec.image.config.Env.includes(`AGENTBOX_MANIFEST_SHA256=${ts.sha256}`));
});

t.test('the checks build: lib tests, golden files, docker-compose config, the TypeScript validator', async (t) => {
  const env = { ...process.env, AGENTBOX_STUB_APP: stubApp() };
  const attrs = ['lib-tests', 'golden', 'compose', 'manifest'].map((c) => `.#checks.${currentSystem}.${c}`);
  const r = nixFlake(['build', '--impure', '--no-link', '--json', ...attrs], { env });
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  t.equal((JSON.parse(r.stdout) as unknown[]).length, 4);
});

t.test('packages.k8s is the kubernetes.yaml agentbox render --target kubernetes writes for agentbox.toml', async (t) => {
  const env = { ...process.env, AGENTBOX_STUB_APP: stubApp() };
  const r = nixFlake(['build', '--impure', '--no-link', '--json', `.#packages.${currentSystem}.k8s`], { env });
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const out = (JSON.parse(r.stdout) as Array<{ outputs: { out: string } }>)[0]!.outputs.out;
  const { rendered } = await renderManifest({ manifestFile: path.join(repoRoot, 'agentbox.toml'), outDir: repoRoot, context: ctx, targets: ['kubernetes'] });
  t.equal(readFileSync(out, 'utf8'), rendered!.files['kubernetes.yaml'], 'the same objects, image tag included');
  t.match(readFileSync(out, 'utf8'), /^kind: "StatefulSet"$/m);
});

t.test('an invalid manifest fails the build of the manifest check and of every output', async (t) => {
  const env = { ...process.env, AGENTBOX_STUB_APP: stubApp() };
  const outputs = [
    `.#checks.${currentSystem}.manifest`,
    `.#packages.${currentSystem}.compose`,
    `.#packages.${currentSystem}.supervisord-conf`,
    `.#packages.${currentSystem}.k8s`,
  ];
  // Schema-valid but refused by a rule (E006 port collision): only the TypeScript validator,
  // run in the build, can say so — and every output depends on that derivation.
  const ruleInvalid = flakeCopy('[api]\nport = 9091\n');
  for (const attr of outputs) {
    const r = nixFlake(['build', '--impure', '--no-link', attr], { env, flake: ruleInvalid });
    t.not(r.code, 0, `rule error: ${attr} fails`);
    t.match(r.stderr, /error E006 port-collision/, `rule error: ${attr} shows the validator's diagnostic`);
  }
  // Not even schema-valid: the Nix loader already refuses it while evaluating.
  const schemaInvalid = flakeCopy('[observability]\nmetric_port = 9100\n');
  for (const attr of outputs) {
    const r = nixFlake(['build', '--impure', '--no-link', attr], { env, flake: schemaInvalid });
    t.not(r.code, 0, `schema error: ${attr} fails`);
    t.match(r.stderr, /unknown-key at observability\.metric_port|unknown key \/observability\/metric_port/, `schema error: ${attr} names the key`);
  }
});
