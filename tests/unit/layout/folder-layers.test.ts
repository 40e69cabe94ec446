// The folders of management-api/src are layers: a file imports values only from a floor below its own (FLOORS is the one list).
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relativeValueImports, typeScriptFiles } from '../../helpers/import-graph.js';

const src = fileURLToPath(new URL('../../../management-api/src/', import.meta.url));

/**
 * The floors of management-api/src, from the ground up. Each names its rooms: a folder (`a/`,
 * with everything under it) or a file at the top of src. A file may import a value from its own
 * room and from rooms on lower floors; from the same floor or a higher one, it may import types
 * only (`import type`: they vanish at run time). docs/developer/architecture.md draws this list.
 */
const FLOORS: readonly (readonly string[])[] = [
  // Facts and grammars: the error table, the version, box facts, secrets, the value grammars rules and runtime share,
  // and the pure transparency-log code (Merkle trees, proofs, signed notes); the typed API client (fetch only, it runs in browsers too).
  ['errors.ts', 'version.ts', 'box-facts.ts', 'secrets/', 'grammar/', 'tlog/', 'client/'],
  // What stands on them: the errors adapters and their subsystems raise, every runtime path, every
  // port a box binds, the durable writes every store makes (full writes, directory fsync), what each
  // supervised programme does (watch its parent, record a failed start), the policy evaluator
  // (pure, on the grammars; below the manifest, whose rules use it), a keyed mutex (a check and
  // the action it admits, for requests sent at once), file names as the kernel has them (bytes), and
  // a response body read no further than a bound.
  [
    'adapter-errors.ts',
    'runtime-paths.ts',
    'box-ports.ts',
    'durable-fs.ts',
    'fs-names.ts',
    'serial-lock.ts',
    'file-lock.ts',
    'read-at-most.ts',
    'thread-slices.ts',
    'programme/',
    'policy/',
  ],
  // Loading agentbox.toml: parsing, schema, rules.
  ['manifest/'],
  // Logging, tracing, the API's own metrics; the server's settings from the manifest.
  ['observability/', 'server-config.ts'],
  // The agents' subsystems, each on its own: confinement and limits, credentials, the egress proxy, workspace files.
  ['sandbox/', 'credentials/', 'egress/', 'workspace-files/'],
  // The five adapter slots (the orchestrator drives the subsystems below); workspace snapshots, on the files API's safe walk.
  ['adapters/', 'snapshots/'],
  // Backing up and restoring a box's stores from outside the running API (the CLI), on their formats.
  ['backup/'],
  // Who is calling, and what readiness is made of.
  ['auth/', 'probes/'],
  // Boot stages and the seal; the HTTP plumbing.
  ['boot/', 'http/'],
  // The mesh; the approvals queue (on the audit trail, holding supervised asks); the input requests (agents waiting for a person); what the routes see of the app.
  ['mesh/', 'approvals/', 'input-requests/', 'app-state.ts'],
  // Every HTTP route; the MCP server and its /mcp route, which call the routes through the client.
  ['routes/', 'mcp/'],
  ['dashboard/'],
  // The composition root: every area's metrics, the fastify app.
  ['api-metrics.ts', 'app.ts'],
  ['start-server.ts'],
  ['server.ts'],
  // One process entry per supervised programme and the image's entrypoint: read the environment, run, exit.
  ['bin/'],
];

/** The room of `file` under `root`: its first folder (`a/`) or, at the top, its own name. */
function roomOf(root: string, file: string): string {
  const parts = path.relative(root, file).split(path.sep);
  return parts.length === 1 ? parts[0]! : `${parts[0]}/`;
}

/** What breaks the layering under `root`: `from -> to (file: statement)` for each value import that does not go down, and each room on no floor. */
function layerBreaks(root: string, floors: readonly (readonly string[])[]): string[] {
  const floorOf = new Map<string, number>();
  floors.forEach((rooms, i) => {
    for (const room of rooms) floorOf.set(room, i);
  });
  const breaks = new Set<string>();
  for (const file of typeScriptFiles(root)) {
    const from = roomOf(root, file);
    const fromFloor = floorOf.get(from);
    if (fromFloor === undefined) {
      breaks.add(`${from} is on no floor: add it to FLOORS`);
      continue;
    }
    for (const { target, statement } of relativeValueImports(file)) {
      if (path.relative(root, target).startsWith('..')) continue;
      const to = roomOf(root, target);
      const toFloor = floorOf.get(to);
      if (to === from || toFloor === undefined || toFloor < fromFloor) continue;
      const how = toFloor === fromFloor ? 'same floor' : 'upward';
      breaks.add(`${from} -> ${to} (${how}): ${path.relative(root, file)}: ${statement}`);
    }
  }
  return [...breaks];
}

t.test('no file under management-api/src imports a value from its own floor or a higher one', async (t) => {
  t.same(layerBreaks(src, FLOORS), [], 'move what both need down a floor, pass it in from above, or import its type only');
});

t.test('every room is on one floor only', async (t) => {
  const rooms = FLOORS.flat();
  t.same(
    rooms.filter((room, i) => rooms.indexOf(room) !== i),
    [],
    'a room listed twice',
  );
});

t.test('the check names an upward or sideways value import, and lets type-only imports and downward ones pass', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-layers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const room of ['low', 'high', 'side', 'stray']) mkdirSync(path.join(dir, room));
  writeFileSync(path.join(dir, 'high', 'top.ts'), "import { base } from '../low/base.js';\nexport const top = base + 1;\n");
  writeFileSync(path.join(dir, 'side', 'peer.ts'), 'export const peer = 1;\n');
  writeFileSync(
    path.join(dir, 'low', 'types.ts'),
    "import type { top } from '../high/top.js';\nimport { type peer } from '../side/peer.js';\nexport type T = typeof top | typeof peer;\n",
  );
  writeFileSync(
    path.join(dir, 'low', 'base.ts'),
    "import { top } from '../high/top.js';\nexport const base = 1;\nexport const later = () => import('../side/peer.js');\nexport const t = top;\n",
  );
  writeFileSync(path.join(dir, 'stray', 'x.ts'), 'export const x = 1;\n');
  writeFileSync(path.join(dir, 'entry.ts'), "export { top } from './high/top.js';\n");
  const floors = [['low/'], ['high/', 'side/'], ['entry.ts']];
  t.same(layerBreaks(dir, floors).sort(), [
    "low/ -> high/ (upward): low/base.ts: import { top } from '../high/top.js';",
    "low/ -> side/ (upward): low/base.ts: import('../side/peer.js')",
    'stray/ is on no floor: add it to FLOORS',
  ]);
  writeFileSync(path.join(dir, 'side', 'peer.ts'), "import { top } from '../high/top.js';\nexport const peer = top;\n");
  t.ok(
    layerBreaks(dir, floors).includes("side/ -> high/ (same floor): side/peer.ts: import { top } from '../high/top.js';"),
    'a sideways import on one floor is named',
  );
});
