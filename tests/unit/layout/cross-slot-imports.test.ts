// No adapter slot folder imports from a sibling slot's folder: shared helpers live in one shared place.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SLOTS } from '../../../management-api/src/adapters/adapter.js';
import { importGraph } from '../../helpers/import-graph.js';

const adaptersDir = fileURLToPath(new URL('../../../management-api/src/adapters', import.meta.url));

/** `from → to` for every import of a file in one slot folder from a file in another slot folder under `dir`. */
function crossSlotImports(dir: string, slots: readonly string[]): string[] {
  const slotOf = (file: string): string | undefined => {
    const first = path.relative(dir, file).split(path.sep)[0];
    return first !== undefined && slots.includes(first) ? first : undefined;
  };
  const found: string[] = [];
  for (const [file, imports] of importGraph(slots.map((s) => path.join(dir, s)))) {
    const from = slotOf(file);
    for (const target of imports) {
      const to = slotOf(target);
      if (to !== undefined && to !== from) found.push(`${path.relative(dir, file)} → ${path.relative(dir, target)}`);
    }
  }
  return found;
}

t.test('no file under adapters/<slot>/ imports from another slot folder', async (t) => {
  t.same(crossSlotImports(adaptersDir, SLOTS), [], 'move the shared code to a shared folder (adapters/http-client/, adapters/*.ts)');
});

t.test('the scan finds a cross-slot import, including a type-only one', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-cross-slot-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const slot of ['beads', 'events', 'shared']) mkdirSync(path.join(dir, slot));
  writeFileSync(path.join(dir, 'beads', 'call.ts'), 'export const call = 1;\n');
  writeFileSync(path.join(dir, 'shared', 'util.ts'), 'export const util = 1;\n');
  writeFileSync(
    path.join(dir, 'events', 'a.ts'),
    "import type { call } from '../beads/call.js';\nimport { util } from '../shared/util.js';\nexport type A = typeof call | typeof util;\n",
  );
  t.same(crossSlotImports(dir, ['beads', 'events']), [`events${path.sep}a.ts → beads${path.sep}call.ts`]);
});
