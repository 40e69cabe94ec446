// What a capture worker keeps between captures: the store's chunk hashes (pack by pack) and the entries of the snapshots it made last, so the next capture of an agent reads neither again.
import { readFileSync } from 'node:fs';
import { parseEntries } from './entries-file.js';
import { indexFile, listPacks, type PackIndex } from './object-store.js';
import type { SnapshotEntry } from './snapshot-manifest.js';

export type FileEntry = Extract<SnapshotEntry, { type: 'file' }>;

/**
 * A snapshot's file entries by path, each with its line of the entries file (written again as it
 * is when the file is unchanged) and its key as numbers (compared without making a string per file;
 * parsed when first needed, null when the key is empty).
 */
export type PreviousFiles = Map<string, { entry: FileEntry; line: string; stamp?: number[] | null }>;

/**
 * Entries are kept for at most this many files in all, besides the latest snapshot's, which is
 * always kept: about 1 KiB each (10,647 files held 10.6 MiB with the chunk hashes), and a thread
 * lets go of all of it when it ends, a minute after its last capture.
 */
const MAX_KEPT_FILES = 50_000;

/** The chunks of a store: its packs' indexes, loaded once each (a pack never changes under its name; a repack writes a new one). */
export class KnownChunks {
  /** Hashes of each pack loaded, and in how many packs each hash is (a chunk two captures wrote at once is in two). */
  readonly #packs = new Map<string, string[]>();
  readonly #count = new Map<string, number>();

  /** Follow the store's packs now: load the new ones, forget the removed ones. Called at each capture's start, under the store's shared lock (no sweep runs meanwhile). */
  refresh(storeDir: string): void {
    const now = new Set(listPacks(storeDir));
    for (const [pack, hashes] of this.#packs) {
      if (now.has(pack)) continue;
      this.#packs.delete(pack);
      for (const h of hashes) {
        const n = this.#count.get(h)! - 1;
        if (n === 0) this.#count.delete(h);
        else this.#count.set(h, n);
      }
    }
    for (const pack of now) {
      if (this.#packs.has(pack)) continue;
      let hashes: string[];
      try {
        hashes = Object.keys(JSON.parse(readFileSync(indexFile(storeDir, pack), 'utf8')) as PackIndex);
      } catch {
        // Torn by a power loss before its snapshot was committed: no summary refers to it; the sweep removes it.
        hashes = [];
      }
      this.add(pack, hashes);
    }
  }

  /** A pack this worker just wrote, before the service moves it into packs/ (a pack never committed is forgotten at the next refresh). */
  add(pack: string, hashes: string[]): void {
    this.#packs.set(pack, hashes);
    for (const h of hashes) this.#count.set(h, (this.#count.get(h) ?? 0) + 1);
  }

  has(hash: string): boolean {
    return this.#count.has(hash);
  }
}

/**
 * Kept per worker. Entries are keyed by their sha256, the same the summary records, so an entry
 * set is only ever reused for the very snapshot it was made as; the chunk hashes follow the
 * packs on disk at each capture's start, so a chunk a sweep removed is never taken as stored.
 */
export class CaptureCache {
  readonly #known = new Map<string, KnownChunks>();
  /** Oldest first. */
  readonly #entries = new Map<string, PreviousFiles>();

  /** The store's chunks, brought up to date with its packs. */
  knownChunks(storeDir: string): KnownChunks {
    let known = this.#known.get(storeDir);
    if (!known) this.#known.set(storeDir, (known = new KnownChunks()));
    known.refresh(storeDir);
    return known;
  }

  /** The file entries of the snapshot whose entries file is `file` with `sha256`: kept from the capture that made it, else read (and checked) from the file. */
  previousFiles(file: string, sha256: string): PreviousFiles {
    const kept = this.#entries.get(sha256);
    if (kept) return kept;
    const text = readFileSync(file);
    const entries = parseEntries(text, sha256, file);
    const lines = text.toString('utf8').split('\n');
    const files: PreviousFiles = new Map();
    for (const [i, e] of entries.entries()) if (e.type === 'file') files.set(e.path, { entry: e, line: lines[i]! });
    return files;
  }

  /** Keep the file entries of a snapshot just made, for the agent's next capture. */
  keep(sha256: string, files: PreviousFiles): void {
    this.#entries.set(sha256, files);
    let total = 0;
    for (const f of this.#entries.values()) total += f.size;
    for (const [sha, f] of this.#entries) {
      if (total <= MAX_KEPT_FILES || this.#entries.size === 1) break;
      this.#entries.delete(sha);
      total -= f.size;
    }
  }
}
