// Every chunk a copied snapshot store's snapshots name, read back from its pack and checked against the sha256 it is named by:
// what a backup's file hashes cannot see (a pack damaged before it was copied, or damaged and its hash in the index rewritten).
import { readdirSync, readFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { chunkSize, parseEntries } from '../snapshots/entries-file.js';
import { type ChunkLocation, checkChunk, loadIndex, packFile, storeLayout } from '../snapshots/object-store.js';
import { CHUNK_BYTES, isHoleChunk, type SnapshotEntry } from '../snapshots/snapshot-manifest.js';

/** Where a chunk is first named: the snapshot and the file. */
interface FirstUse {
  snapshot: string;
  file: string;
  /** Files (in any snapshot) naming it besides the first. */
  others: number;
}

/**
 * One line per chunk that does not read back as the bytes its hash names, naming the snapshot and
 * file that use it and its pack. Each distinct chunk is read once, in pack order; a chunk no pack
 * holds is snapshotStoreProblems' to report. Reads are asynchronous, so a signal that ends the
 * command is handled between them: this reads the store's every byte (about half a second a GiB to
 * hash on one core here).
 */
export async function damagedChunks(storeDir: string): Promise<string[]> {
  const { manifests } = storeLayout(storeDir);
  let names: string[];
  try {
    names = readdirSync(manifests).filter((n) => n.endsWith('.json'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const index = loadIndex(storeDir);
  const used = new Map<string, FirstUse>();
  for (const name of names.sort()) {
    const id = name.slice(0, -'.json'.length);
    const entriesPath = path.join(manifests, `${id}.entries`);
    const summary = JSON.parse(readFileSync(path.join(manifests, name), 'utf8')) as { entriesSha256?: string };
    for (const e of parseEntries(readFileSync(entriesPath), String(summary.entriesSha256), entriesPath) as SnapshotEntry[]) {
      if (e.type !== 'file') continue;
      for (const [i, hash] of e.chunks.entries()) {
        // A whole chunk of zeros is a hole: a build never reads it.
        if (isHoleChunk(hash, chunkSize(e.size, i, CHUNK_BYTES)) || !index.has(hash)) continue;
        const first = used.get(hash);
        if (first) first.others++;
        else used.set(hash, { snapshot: id, file: e.path, others: 0 });
      }
    }
  }
  const order = [...used.keys()].sort((a, b) => compareLocations(index.get(a)!, index.get(b)!));
  const problems: string[] = [];
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  // One pack open at a time: the chunks are read in pack order.
  let pack: { name: string; handle: FileHandle | undefined } | undefined;
  try {
    for (const hash of order) {
      const loc = index.get(hash)!;
      const file = packFile(storeDir, loc.pack);
      const use = used.get(hash)!;
      const named = `snapshot ${use.snapshot}, file ${use.file}${use.others ? ` (and ${use.others} more files)` : ''}: chunk ${hash} in pack ${file}`;
      if (pack?.name !== loc.pack) {
        await pack?.handle?.close();
        pack = { name: loc.pack, handle: await open(file, 'r').catch(() => undefined) };
      }
      if (!pack.handle) {
        problems.push(`${named}: the pack cannot be read: the store is damaged`);
        continue;
      }
      // A chunk is at most CHUNK_BYTES: a pack index giving more (or no number) is damaged, never a size to allocate.
      if (!Number.isSafeInteger(loc.offset) || loc.offset < 0 || !Number.isSafeInteger(loc.length) || loc.length < 0 || loc.length > CHUNK_BYTES) {
        problems.push(`${named}: the pack's index places it at ${loc.offset}, ${loc.length} bytes long, which no chunk is: the store is damaged`);
        continue;
      }
      const data = buf.subarray(0, loc.length);
      let got = 0;
      while (got < loc.length) {
        const { bytesRead } = await pack.handle.read(data, got, loc.length - got, loc.offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      try {
        if (got < loc.length) throw new Error(`${named} is cut short (the pack is shorter than its index says): the store is damaged`);
        checkChunk(data, hash, named);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
  } finally {
    await pack?.handle?.close();
  }
  return problems;
}

const compareLocations = (a: ChunkLocation, b: ChunkLocation): number => (a.pack === b.pack ? a.offset - b.offset : a.pack < b.pack ? -1 : 1);
