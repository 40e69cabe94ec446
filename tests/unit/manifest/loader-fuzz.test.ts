// Property tests: random bytes and mutated valid manifests never crash or hang the loader, and
// every outcome is exit 0, 1 or 2 with a diagnostic explaining any failure.
import t from 'tap';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { loadManifestSource, type LoadResult } from '../../../management-api/src/manifest/load-manifest.js';

const ctx = { targetArch: 'x86_64' as const, env: {} };
const reference = readFileSync(new URL('../../../agentbox.toml', import.meta.url), 'utf8');

function checkOutcome(r: LoadResult): boolean {
  if (![0, 1, 2].includes(r.exitCode)) return false;
  if (r.exitCode !== 0 && !r.diagnostics.some((d) => d.severity === 'error' && d.message.length > 0)) return false;
  if (r.exitCode === 0 && !r.manifest) return false;
  return r.diagnostics.every((d) => typeof d.id === 'string' && typeof d.pointer === 'string');
}

t.test('random text never crashes the loader', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 400 }), async (text) => checkOutcome(await loadManifestSource(text, ctx))),
    { numRuns: 400 },
  );
  t.pass('400 random documents handled');
});

t.test('random bytes decoded as UTF-8 never crash the loader', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => checkOutcome(await loadManifestSource(Buffer.from(bytes).toString('utf8'), ctx))),
    { numRuns: 300 },
  );
  t.pass('300 random byte strings handled');
});

/** One edit applied to the reference manifest's lines. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('delete-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate-line' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert-char' as const),
    at: fc.nat(),
    ch: fc.constantFrom('[', ']', '=', '"', "'", '{', '}', ',', '#', '\n', '.', ' ', 'x', '1', '\\'),
  }),
  fc.record({ kind: fc.constant('delete-char' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('retype-value' as const),
    at: fc.nat(),
    value: fc.constantFrom('1', '-1', '"x"', 'true', '[]', '{}', '1.5', '1979-05-27', '"0.0.0.0"', '99999999', '"external-http"', '["beads"]'),
  }),
  fc.record({
    kind: fc.constant('add-key' as const),
    at: fc.nat(),
    key: fc.constantFrom('port', 'bogus', 'enabled', 'mode', 'reason', 'command', '"quoted key"'),
  }),
);

/** One edit as the arbitrary above generates it (a union discriminated by `kind`). */
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(text: string, edits: Mutation[]): string {
  let out = text;
  for (const e of edits) {
    const lines = out.split('\n');
    const i = e.at % Math.max(lines.length, 1);
    const pos = e.at % Math.max(out.length, 1);
    switch (e.kind) {
      case 'delete-line':
        lines.splice(i, 1);
        out = lines.join('\n');
        break;
      case 'duplicate-line':
        lines.splice(i, 0, lines[i] ?? '');
        out = lines.join('\n');
        break;
      case 'insert-char':
        out = out.slice(0, pos) + String(e.ch) + out.slice(pos);
        break;
      case 'delete-char':
        out = out.slice(0, pos) + out.slice(pos + 1);
        break;
      case 'retype-value':
        lines[i] = (lines[i] ?? '').replace(/=.*/, `= ${String(e.value)}`);
        out = lines.join('\n');
        break;
      case 'add-key':
        lines.splice(i, 0, `${String(e.key)} = 1`);
        out = lines.join('\n');
        break;
    }
  }
  return out;
}

t.test('mutated valid manifests never crash the loader', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 6 }), async (edits) =>
      checkOutcome(await loadManifestSource(mutate(reference, edits), ctx)),
    ),
    { numRuns: 500 },
  );
  t.pass('500 mutated manifests handled');
});

t.test('pathological shapes finish with a diagnostic', async (t) => {
  const deep = `a = ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
  const r1 = await loadManifestSource(deep, ctx);
  t.ok([1, 2].includes(r1.exitCode), 'deep nesting is rejected, not a crash');
  const wide = Array.from({ length: 2000 }, (_, i) => `[programs.p${i}]\ncommand = 7`).join('\n');
  const r2 = await loadManifestSource(wide, ctx);
  t.equal(r2.exitCode, 1);
  t.equal(r2.diagnostics.filter((d) => d.alias === 'wrong-type').length, 2000, 'every bad programme is reported');
  t.equal(r2.diagnostics[1999]?.line, 3999 + 1, 'positions stay exact deep into the file');
});

t.test('a 10,000-programme manifest validates', async (t) => {
  const big = Array.from({ length: 10_000 }, (_, i) => `[programs.p${i}]\ncommand = "/usr/bin/true"\npriority = ${100 + (i % 800)}\n`).join('\n');
  const r = await loadManifestSource(big, ctx);
  t.not(r.exitCode, 2);
  t.equal(Object.keys(r.manifest?.programs ?? {}).length, 10_000);
});
