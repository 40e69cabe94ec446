// A directory of a snapshot written as a tar straight from the store (in the snapshot tar worker, snapshot-tar-worker.ts): its entries from the snapshot's record, each file's bytes from the packs its chunks are in (each chunk checked against its hash before it is sent), holes as zeros.
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { Pace, PackReport } from '../workspace-files/tar-pack-walk.js';
import type { FilePart, TarWriter } from '../workspace-files/tar-writer.js';
import { chunkSize, parseEntries } from './entries-file.js';
import { chunkPlaces } from './snapshot-browse.js';
import { checkChunk, loadIndex, packFile } from './object-store.js';
import { CHUNK_BYTES, inTreeOrder, type SnapshotEntry } from './snapshot-manifest.js';

/** Which snapshot, and which of its directories ('' the top). */
export interface SnapshotTarSource {
  storeDir: string;
  entriesFile: string;
  entriesSha256: string;
  dir: string;
}

/** The request the snapshot tar worker packs. */
export interface PackSnapshotRequest extends SnapshotTarSource {
  type: 'pack-snapshot';
  id: number;
}

/**
 * Pack directory `source.dir` of a snapshot as the workspace files API packs a directory: names
 * relative to it, directories ending in `/` and before what they hold, permission bits only, no
 * owners, links as links (never followed). Every pack the files need is opened before the first
 * byte is written, and the caller holds the store's lock until that first byte: a delete
 * meanwhile removes nothing this reads (an open pack stays readable once unlinked).
 */
export async function packSnapshot(out: TarWriter, source: PackSnapshotRequest, report: PackReport, pace: Pace): Promise<void> {
  const entries = parseEntries(readFileSync(source.entriesFile), source.entriesSha256, source.entriesFile);
  const prefix = source.dir === '' ? '' : `${source.dir}/`;
  const below = entries.filter((e) => e.path !== '' && e.path.startsWith(prefix));
  // Parents before what they hold: a tar reader makes a directory when it meets its entry.
  const ordered = inTreeOrder(below, (e) => e.path);
  const index = loadIndex(source.storeDir);
  const packs = new Map<string, number>();
  try {
    const parts = new Map<SnapshotEntry, FilePart[]>();
    for (const e of ordered) if (e.type === 'file') parts.set(e, partsOf(e, index, packs, source.storeDir));
    for (const e of ordered) {
      await pace();
      const name = e.path.slice(prefix.length);
      const mtime = new Date(Number(BigInt(e.mtimeNs) / 1_000_000n));
      if (e.type === 'dir') await out.entry({ path: `${name}/`, type: 'Directory', mode: e.mode & 0o777, mtime });
      else if (e.type === 'symlink') await out.entry({ path: name, type: 'SymbolicLink', mode: 0o777, mtime, linkpath: e.target });
      else await out.parts({ path: name, type: 'File', mode: e.mode & 0o777, mtime, size: e.size }, parts.get(e)!);
      report.entries++;
    }
  } finally {
    for (const fd of packs.values()) closeSync(fd);
  }
}

/**
 * Where file `e`'s bytes are: its chunks in their packs (opened into `packs` as met), each checked
 * against its sha256 as it is packed (a damaged one ends the tar before any of its bytes is sent),
 * its whole chunks of zeros as zeros.
 */
function partsOf(e: Extract<SnapshotEntry, { type: 'file' }>, index: ReturnType<typeof loadIndex>, packs: Map<string, number>, storeDir: string): FilePart[] {
  return chunkPlaces(e, index).map((loc, i) => {
    if (loc === null) return { zeros: chunkSize(e.size, i, CHUNK_BYTES) };
    let fd = packs.get(loc.pack);
    if (fd === undefined) {
      fd = openSync(packFile(storeDir, loc.pack), 'r');
      packs.set(loc.pack, fd);
    }
    const hash = e.chunks[i]!;
    return {
      fd,
      offset: loc.offset,
      length: loc.length,
      check: (bytes: Uint8Array) => checkChunk(bytes, hash, `chunk ${hash} of "${e.path}" read from pack ${loc.pack}`),
    };
  });
}
