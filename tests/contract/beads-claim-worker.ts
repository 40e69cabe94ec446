// A separate process that claims every bead it is given on a shared SQLite file and reports what it won.
// Usage: node beads-claim-worker.ts <db-file> <claimant> <ids-json-file> <go-file>
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalSqliteBeads } from '../../management-api/src/adapters/beads/local-sqlite.js';

const [file, claimant, idsFile, goFile] = process.argv.slice(2) as [string, string, string, string];
const beads = new LocalSqliteBeads({ file });
await beads.connect(AbortSignal.timeout(10_000));
const ids = JSON.parse(readFileSync(idsFile, 'utf8')) as string[];
// Each worker walks the ids in its own order, so claims collide from every direction.
const order = [...ids].sort(() => Math.random() - 0.5);
process.stdout.write('ready\n');
while (!existsSync(goFile)) await sleep(2);

const won: string[] = [];
let conflicts = 0;
const errors: string[] = [];
for (const id of order) {
  try {
    const r = await beads.claim(id, claimant);
    if (r.claimed) won.push(id);
    // Claiming again must be a no-op that still reports the win.
    if (!(await beads.claim(id, claimant)).claimed) errors.push(`repeat claim of ${id} not acknowledged`);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ABX_ERR_CONFLICT') conflicts += 1;
    else errors.push(`${code ?? ''} ${(err as Error).message}`);
  }
}
await beads.close();
process.stdout.write(`${JSON.stringify({ claimant, won, conflicts, errors })}\n`);
