// No import cycle in the management API or the CLI: static, type-only and literal dynamic imports all count.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCycles, importGraph } from '../../helpers/import-graph.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

for (const dir of ['management-api/src', 'scripts/cli']) {
  t.test(`no import cycle under ${dir}`, async (t) => {
    const graph = importGraph([path.join(repo, dir)]);
    t.ok(graph.size > 10, 'the files were found');
    const cycles = findCycles(graph).map((c) => c.map((f) => path.relative(repo, f)).join(' → '));
    t.same(cycles, [], 'break each cycle by moving what both sides share into a file of its own');
  });
}

t.test('the search finds a cycle through a type-only import and a dynamic import', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-cycles-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'runner.ts'), "import type { Entry } from './table.js';\nexport const run = (e: Entry) => e;\n");
  writeFileSync(
    path.join(dir, 'table.ts'),
    "export interface Entry { load(): Promise<unknown> }\nexport const entries: Entry[] = [{ load: () => import('./command.js') }];\n",
  );
  writeFileSync(path.join(dir, 'command.ts'), "import { run } from './runner.js';\nexport default run;\n");
  writeFileSync(path.join(dir, 'leaf.ts'), 'export const leaf = 1;\n');
  const cycles = findCycles(importGraph([dir])).map((c) => c.map((f) => path.basename(f)));
  t.same(cycles, [['command.ts', 'runner.ts', 'table.ts', 'command.ts']]);
});
