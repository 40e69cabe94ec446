// The ports a box binds are one fact in two languages: box-ports.ts (agentbox up's check, doctor,
// the port-taken line) and the Nix programme records behind ExposedPorts and the compose ports.
// For each fixture and a few edge manifests, both name the same programmes on the same ports, a
// loopback-only programme (facts: loopbackOnly) binds loopback in TypeScript and is not exposed
// by Nix, and every other port TypeScript lists is one the image exposes.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { nixInstantiate, repoRoot } from './helpers.js';
import { boxPorts } from '../../management-api/src/box-ports.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';

type NixProgramme = { name: string; port: number; loopbackOnly: boolean };

const fixtures = readdirSync(path.join(repoRoot, 'tests/fixtures/manifests'))
  .filter((f) => f.endsWith('.toml'))
  .map((f) => [f, readFileSync(path.join(repoRoot, 'tests/fixtures/manifests', f), 'utf8')] as const);
const edges: ReadonlyArray<readonly [string, string]> = [
  [
    'sandbox off, relay on',
    '[sandbox]\nenabled = false\n\n[security]\naudit_acknowledged = true\n\n[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\nport = 7001\n',
  ],
  [
    'moved ports',
    '[api]\nport = 9300\n\n[observability]\nmetrics_port = 9301\n\n[sandbox.egress]\nport = 3300\n\n[programs.web]\ncommand = "/bin/true"\nport = 9400\n',
  ],
];

for (const [name, source] of [...fixtures, ...edges]) {
  t.test(name, async (t) => {
    const { manifest, diagnostics } = await loadManifestSource(source, { targetArch: 'x86_64', env: {}, provides: ['program:relay'] });
    if (!manifest) throw new Error(`${name}: ${JSON.stringify(diagnostics)}`);
    const text = JSON.stringify(source);
    const r = nixInstantiate(`let lib = import ./lib; manifest = lib.loadManifest { text = ${text}; }; in {
      programmes = map (p: { inherit (p) name port; loopbackOnly = p.loopbackOnly or false; }) (builtins.filter (p: p.port > 0) (lib.programsFor { inherit manifest; }));
      exposed = map (p: builtins.head (builtins.match "([0-9]+)/tcp" p)) (builtins.attrNames (lib.imageConfig { inherit manifest; }).config.ExposedPorts);
    }`);
    t.equal(r.code, 0, 'nix evaluates', { stderr: r.stderr });
    const nix = JSON.parse(r.stdout) as { programmes: NixProgramme[]; exposed: string[] };
    const ts = boxPorts(manifest);

    // One port per programme in a Nix record (its own first), all of them in TypeScript.
    const firstTs = new Map<string, number>();
    for (const p of ts) if (!firstTs.has(p.program)) firstTs.set(p.program, p.port);
    t.same([...firstTs.keys()].sort(), nix.programmes.map((p) => p.name).sort(), 'the same programmes listen');
    for (const p of nix.programmes) t.equal(firstTs.get(p.name), p.port, `${p.name} on ${p.port}`);

    const loopbackOnly = new Set(nix.programmes.filter((p) => p.loopbackOnly).map((p) => p.name));
    for (const p of ts.filter((p) => loopbackOnly.has(p.program))) t.equal(p.host, '127.0.0.1', `${p.program} (loopback only) binds loopback`);
    const exposedByTs = [...new Set(ts.filter((p) => !loopbackOnly.has(p.program)).map((p) => p.port))].sort((a, b) => a - b);
    t.same(
      exposedByTs,
      nix.exposed.map(Number).sort((a, b) => a - b),
      'ExposedPorts are every port TypeScript lists but the loopback-only ones',
    );
  });
}
