// The starter manifest (agentbox init) and the reference agentbox.toml are generated from the
// schema: every default key written with the schema's default, meaning exactly the embedded default.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { starterManifest } from '../../../scripts/cli/starter-manifest.js';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { manifestSchema } from '../../../management-api/src/manifest/schema-walk.js';
import { repoRoot } from '../../helpers/cli.js';
import { FLOATING_PORT_KEYS } from '../../../management-api/src/box-ports.js';

const context = { targetArch: 'x86_64' as const, env: {} };

/** Every leaf key path of a plain object (arrays and empty tables count as leaves). */
function leafPaths(value: unknown, prefix: string[] = []): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return [prefix.join('.')];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
}

t.test('the standalone starter means the embedded default and writes every default key', async (t) => {
  const text = starterManifest({ mode: 'standalone', schemaRef: './schema/agentbox.schema.json' });
  const [starter, empty] = await Promise.all([loadManifestSource(text, context), loadManifestSource('', context)]);
  t.same(starter.diagnostics, [], 'valid, no warnings');
  t.equal(starter.sha256, empty.sha256, 'normalizes to the same manifest as an empty file');
  const written = new Set(leafPaths(parse(text)));
  // Maps keyed by the operator's names are empty by default: the starter shows them as comments.
  const missing = leafPaths(empty.manifest).filter((p) => !written.has(p) && !['programs', 'providers', 'security.exceptions', 'agents.profiles'].includes(p));
  t.same(missing.sort(), [...FLOATING_PORT_KEYS].sort(), 'every key with a default is written out, but the ports a second box may move');
  for (const key of FLOATING_PORT_KEYS) t.match(text, new RegExp(`^# ${key.split('.').pop()} = \\d+$`, 'm'), `${key} is shown, commented out`);
  t.match(text, /^# \[programs\.worker\]\n# command = "\/usr\/bin\/env"$/m, 'maps are shown as commented schema examples');
  t.match(text, /^# \[security\.exceptions\.playwright\]$/m);
  t.match(
    text,
    /^# TCP port of the management API\. Left out: 9090, or in local mode a free port when 9090 is taken\n# \(agentbox up says which\); set it to require exactly this port\.\n# port = 9090$/m,
    'each key carries its schema description',
  );
  t.match(text, /^# Name of the box: .*\n.*\nname = "agentbox"$/m, 'other keys are written as they are');
});

t.test('the reference agentbox.toml is the standalone starter', async (t) => {
  t.equal(readFileSync(`${repoRoot}/agentbox.toml`, 'utf8'), starterManifest({ mode: 'standalone', schemaRef: './schema/agentbox.schema.json' }));
});

t.test('defaults come from the schema, not from the generator', async (t) => {
  const schema = structuredClone(manifestSchema) as { properties: { api: { properties: { port: { default: number } } } } };
  schema.properties.api.properties.port.default = 9999;
  const text = starterManifest({ mode: 'client', schemaRef: 'x', schema });
  t.match(text, /^# port = 9999$/m, 'a changed default is written');
  t.match(text, /^host_url = "http:\/\/127\.0\.0\.1:9999"$/m, 'the client starter points at the API default port');
});

t.test('client and host starters set their mesh mode and validate cleanly', async (t) => {
  // A host starter cannot know its members' keys: W015 says to add them, and nothing else is reported.
  for (const [mode, extra, warnings] of [
    ['client', /^host_url = "https:\/\/mesh\.example\.com"$/m, []],
    ['host', /^host_url = ""$/m, ['W015']],
  ] as const) {
    const text = starterManifest({ mode, schemaRef: 'x', hostUrl: 'https://mesh.example.com' });
    const r = await loadManifestSource(text, context);
    t.same(
      r.diagnostics.map((d) => d.id),
      warnings,
      `${mode}: no errors, warnings ${warnings.join(', ') || 'none'}`,
    );
    t.equal(r.manifest?.mesh.mode, mode);
    t.match(text, extra);
  }
});
