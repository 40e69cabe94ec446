// Loader: TOML syntax errors, schema errors located in the TOML source, defaults, freezing, hashing.
import t from 'tap';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { canonicalJson } from '../../../management-api/src/manifest/canonical-json.js';

const ctx = { targetArch: 'x86_64' as const, env: {} };

t.test('an empty manifest is valid and means the embedded default', async (t) => {
  const r = await loadManifestSource('', ctx);
  t.equal(r.exitCode, 0);
  t.same(r.diagnostics, []);
  t.equal(r.manifest?.api.port, 9090);
  t.equal(r.manifest?.observability.metrics_port, 9091);
  t.equal(r.manifest?.adapters.beads, 'local-sqlite');
  t.equal(r.manifest?.mesh.mode, 'standalone');
  t.same(r.manifest?.adapters.critical, ['orchestrator']);
  t.match(r.sha256, /^[0-9a-f]{64}$/);
  t.ok(Object.isFrozen(r.manifest?.adapters), 'nested tables are frozen');
});

t.test('malformed TOML is exit 2 naming line and column with a code frame', async (t) => {
  const r = await loadManifestSource('[api]\nport = 9090\nbind = \n', ctx);
  t.equal(r.exitCode, 2);
  t.equal(r.diagnostics.length, 1);
  const d = r.diagnostics[0]!;
  t.equal(d.id, 'TOML');
  t.equal(d.line, 3);
  t.ok(d.column && d.column > 0);
  t.match(d.frame, /bind =/);
});

t.test('a type error is exit 1 naming the key path and its line', async (t) => {
  const r = await loadManifestSource('# comment\n[api]\nport = "9090"\n', ctx);
  t.equal(r.exitCode, 1);
  const d = r.diagnostics[0]!;
  t.equal(d.pointer, '/api/port');
  t.equal(d.alias, 'wrong-type');
  t.equal(d.line, 3);
  t.equal(d.column, 1);
  t.match(d.message, /api\.port.*integer/);
});

t.test('bootstrap.seal_timeout_sec is bounded by the schema alone (10..3600; E021 is retired)', async (t) => {
  for (const [sec, ok] of [
    [9, false],
    [10, true],
    [3600, true],
    [3601, false],
  ] as const) {
    const r = await loadManifestSource(`[bootstrap]\nseal_timeout_sec = ${sec}\n`, ctx);
    t.equal(r.exitCode, ok ? 0 : 1, `${sec} s`);
    if (ok) continue;
    t.same(
      r.diagnostics.map((d) => [d.id, d.alias, d.pointer, d.line]),
      [['SCHEMA', 'out-of-range', '/bootstrap/seal_timeout_sec', 2]],
      `${sec} s is one schema error at its key`,
    );
    t.match(r.diagnostics[0]?.hint, /10.*3600/, 'the hint gives the bounds');
  }
});

t.test('an unknown key gets a did-you-mean and its line', async (t) => {
  const r = await loadManifestSource('[observability]\nmetric_port = 9100\n', ctx);
  t.equal(r.exitCode, 1);
  const d = r.diagnostics.find((x) => x.alias === 'unknown-key');
  t.ok(d);
  t.equal(d?.pointer, '/observability/metric_port');
  t.equal(d?.line, 2);
  t.match(d?.hint, /did you mean `metrics_port`/);
});

t.test('an unknown top-level table and a bad enum value are both reported', async (t) => {
  const r = await loadManifestSource('[adaptors]\nx = 1\n\n[adapters]\nbeads = "local-sqlit"\n', ctx);
  t.equal(r.exitCode, 1);
  const unknown = r.diagnostics.find((x) => x.alias === 'unknown-key');
  t.equal(unknown?.line, 1);
  t.match(unknown?.hint, /adapters/);
  const bad = r.diagnostics.find((x) => x.alias === 'not-allowed-value');
  t.equal(bad?.line, 5);
  t.match(bad?.hint, /local-sqlite/);
});

t.test('keys inside inline tables and arrays of tables are located', async (t) => {
  const r = await loadManifestSource('programs = { web = { command = "/bin/web", priority = "x" } }\n', ctx);
  const d = r.diagnostics.find((x) => x.pointer === '/programs/web/priority');
  t.equal(d?.line, 1);
  t.ok((d?.column ?? 0) > 1);
});

t.test('a missing required key points at its table', async (t) => {
  const r = await loadManifestSource('\n[programs.web]\nargs = []\n', ctx);
  const d = r.diagnostics.find((x) => x.alias === 'missing-key');
  t.equal(d?.line, 2);
  t.match(d?.message, /command/);
});

t.test('the hash is of canonical JSON, independent of key order and comments', async (t) => {
  const a = await loadManifestSource('[api]\nport = 9000\nbind = "127.0.0.1"\n', ctx);
  const b = await loadManifestSource('# hi\n[api]\nbind = "127.0.0.1"\nport = 9000\n', ctx);
  t.equal(a.sha256, b.sha256);
  const c = await loadManifestSource('[api]\nport = 9001\n', ctx);
  t.not(a.sha256, c.sha256);
  t.equal(canonicalJson({ b: 1, a: { d: 2, c: [3] } }), '{"a":{"c":[3],"d":2},"b":1}');
});
