// Is a copied snapshot store whole? Every snapshot's summary names its entries file by SHA-256, and
// every chunk the entries name must be in a pack's index. A sweep (after a delete) that repacks while
// the backup copies can leave a copy that misses a chunk: the backup then copies the store again.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEntries } from '../snapshots/entries-file.js';
import { loadIndex, storeLayout } from '../snapshots/object-store.js';
import type { SnapshotEntry } from '../snapshots/snapshot-manifest.js';

/** What is wrong with the store copied to `storeDir`: one line per snapshot that cannot be read back whole. */
export function snapshotStoreProblems(storeDir: string): string[] {
  const { manifests } = storeLayout(storeDir);
  if (!existsSync(manifests)) return [];
  const chunks = loadIndex(storeDir);
  const problems: string[] = [];
  for (const name of readdirSync(manifests)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const id = name.slice(0, -'.json'.length);
    const entriesPath = path.join(manifests, `${id}.entries`);
    try {
      const summary = JSON.parse(readFileSync(path.join(manifests, name), 'utf8')) as { entriesSha256?: string };
      const entries = parseEntries(readFileSync(entriesPath), String(summary.entriesSha256), entriesPath) as SnapshotEntry[];
      const missing = entries.flatMap((e) => (e.type === 'file' ? e.chunks.filter((h) => !chunks.has(h)) : []));
      if (missing.length) problems.push(`snapshot ${id} names ${missing.length} chunks no pack in ${storeLayout(storeDir).packs} holds`);
    } catch (err) {
      problems.push(`snapshot ${id}: ${(err as Error).message}`);
    }
  }
  return problems;
}
