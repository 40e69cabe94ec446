// The rules about what has no Kubernetes form exist twice: in TypeScript (the validator, run by
// `agentbox config validate --target` and `render --target`) and as data in lib/kubernetes-rules.nix
// (which the Nix library and the flake's k8s output apply without the validator). Both sides must
// find the same things in every schema-valid fixture, for every target; the Nix objects are refused
// when the validator reports a target error, and built when it finds the manifest valid.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { DEPLOY_TARGETS } from '../../management-api/src/manifest/rules/rule.js';
import { nixInstantiate, repoRoot } from './helpers.js';

function tomlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return tomlFiles(p);
    return name.endsWith('.toml') ? [p] : [];
  });
}

type Finding = { id: string; severity: string; pointer: string };
const key = (f: Finding) => `${f.id} ${f.severity} ${f.pointer}`;

t.test('TypeScript and Nix report the same target findings on every fixture, for every target', async (t) => {
  const nixIds = JSON.parse(nixInstantiate('(import ./lib).kubernetesRules.ids').stdout) as string[];
  t.same(nixIds, ['E048', 'E049', 'W019', 'W020'], 'the rules mirrored in Nix');
  const cases: Array<{ name: string; text: string; target: string; ts: string[]; valid: boolean }> = [];
  for (const file of tomlFiles(path.join(repoRoot, 'tests/fixtures')).sort()) {
    const text = readFileSync(file, 'utf8');
    for (const target of DEPLOY_TARGETS) {
      const r = await loadManifestSource(text, { targetArch: 'x86_64', env: {}, target });
      if (!r.manifest) continue; // not schema-valid: no rule runs on either side
      const ts = r.diagnostics.filter((d) => nixIds.includes(d.id)).map((d) => key({ id: d.id, severity: d.severity, pointer: d.pointer ?? '' }));
      cases.push({ name: `${path.relative(repoRoot, file)} (${target})`, text, target, ts: ts.sort(), valid: r.exitCode === 0 });
    }
  }
  t.ok(cases.filter((c) => c.ts.length > 0).length >= 8, 'the target rules fire on several fixtures (each bad.toml, for both Kubernetes targets)');

  // One evaluation for all of them: the findings, and whether the objects of the target are refused.
  const r = nixInstantiate(
    `{ cases }: let lib = import ./lib; in map (c: let
       manifest = lib.loadManifest { text = c.text; };
       objects = if c.target == "kubernetes" then lib.kubernetesObjects { inherit manifest; manifestText = c.text; image = "x:y"; }
         else if c.target == "agent-sandbox" then lib.agentSandboxObjects { inherit manifest; manifestText = c.text; image = "x:y"; }
         else [ ];
     in {
       findings = map (f: { inherit (f) id severity pointer; }) (lib.kubernetesRules.findings { inherit manifest; inherit (c) target; });
       refused = !(builtins.tryEval (builtins.deepSeq objects true)).success;
     }) (builtins.fromJSON cases)`,
    { cases: JSON.stringify(cases.map((c) => ({ text: c.text, target: c.target }))) },
  );
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const nix = JSON.parse(r.stdout) as Array<{ findings: Finding[]; refused: boolean }>;
  cases.forEach((c, i) => {
    const n = nix[i]!;
    t.same(n.findings.map(key).sort(), c.ts, `${c.name}: the same findings`);
    // Other rules' errors may stop the Nix library elsewhere; a target error must, a valid manifest must not.
    if (c.ts.some((k) => k.includes(' error '))) t.ok(n.refused, `${c.name}: a target error: the Nix objects are refused`);
    if (c.valid) t.notOk(n.refused, `${c.name}: valid for ${c.target}: the Nix objects are built`);
  });
});
