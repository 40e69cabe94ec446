// Claim 1 of the design: TypeScript (ajv useDefaults) and Nix (lib/schema-defaults.nix over the
// same schema) normalize every manifest to the same canonical JSON, so both compute one sha256.
// Every schema-valid fixture in the repository is compared, plus edge cases written here.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { canonicalJson } from '../../management-api/src/manifest/canonical-json.js';
import { nixInstantiate, repoRoot } from './helpers.js';

const ctx = { targetArch: 'x86_64' as const, env: {} };

function tomlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return tomlFiles(p);
    return name.endsWith('.toml') ? [p] : [];
  });
}

const edgeCases: Record<string, string> = {
  'floats and big integers': '[resources]\ncpus = 1.5\npids = 4194304\nmemory = "512m"\n',
  'a fractional cpu': '[resources]\ncpus = 0.25\n',
  'escapes in strings': String.raw`[programs.esc]
command = "/bin/esc"
args = ["tab\there", "new\nline", "quote \" and back\\slash", "bell\bform\ffeed", "unicode é ✓ 😀", 'lit\eral']
environment = { A = "x=y,z", B = "", C = "\u0001" }
`,
  'dotted keys and inline tables':
    'api.port = 9300\nobservability = { metrics_port = 9301, log_level = "warn" }\nprograms.a = { command = "/bin/a", depends_on = [] }\n',
  'multi-line strings': '[security.exceptions.desktop]\nreason = """\nline one\nline two"""\n[features]\ndesktop = true\n',
  'arrays of integers': '[sovereign_mesh.relay]\nallowed_kinds = [0, 1, 30023]\n',
};

t.test('TypeScript and Nix normalize every fixture and edge case identically', async (t) => {
  const files = tomlFiles(path.join(repoRoot, 'tests/fixtures')).sort();
  const cases: Array<{ name: string; text: string }> = [
    ...files.map((f) => ({ name: path.relative(repoRoot, f), text: readFileSync(f, 'utf8') })),
    ...Object.entries(edgeCases).map(([name, text]) => ({ name: `edge case: ${name}`, text })),
    { name: 'the repository agentbox.toml', text: readFileSync(path.join(repoRoot, 'agentbox.toml'), 'utf8') },
  ];
  const valid: Array<{ name: string; text: string; json: string; sha256: string }> = [];
  for (const c of cases) {
    const r = await loadManifestSource(c.text, ctx);
    if (r.manifest && r.sha256) valid.push({ ...c, json: canonicalJson(r.manifest), sha256: r.sha256 });
  }
  t.ok(valid.length >= 4 + Object.keys(edgeCases).length, `${valid.length} schema-valid manifests of ${cases.length}`);
  t.ok(
    ['empty', 'reference', 'all-features', 'federated'].every((n) => valid.some((v) => v.name === `tests/fixtures/manifests/${n}.toml`)),
    'the four fixture manifests are among them',
  );

  // One evaluation for all of them.
  const r = nixInstantiate(
    `{ texts }: let lib = import ./lib; in map (text: let m = lib.loadManifest { inherit text; }; in { json = lib.canonicalJson { value = m; }; sha256 = lib.manifestSha256 { manifest = m; }; }) (builtins.fromJSON texts)`,
    { texts: JSON.stringify(valid.map((v) => v.text)) },
  );
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const nix = JSON.parse(r.stdout) as Array<{ json: string; sha256: string }>;
  t.equal(nix.length, valid.length);
  valid.forEach((v, i) => {
    t.equal(nix[i]?.json, v.json, `${v.name}: same canonical JSON`);
    t.equal(nix[i]?.sha256, v.sha256, `${v.name}: same sha256`);
  });
});

t.test('a difference would be seen: a manifest that differs in one value differs in both hashes', async (t) => {
  const a = await loadManifestSource('[api]\nport = 9090\n', ctx);
  const b = await loadManifestSource('[api]\nport = 9091\n', ctx);
  const r = nixInstantiate(
    `let lib = import ./lib; in map (text: lib.manifestSha256 { manifest = lib.loadManifest { inherit text; }; }) [ "[api]\\nport = 9090\\n" "[api]\\nport = 9091\\n" ]`,
  );
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  t.same(JSON.parse(r.stdout), [a.sha256, b.sha256]);
  t.not(a.sha256, b.sha256);
});
