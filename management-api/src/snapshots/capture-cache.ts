// What a capture worker keeps between captures: the store's chunk hashes (pack by pack) and the entries of the snapshots it made last, so the next capture of an agent reads neither again.
import { readFileSync } from 'node:fs';
import { parseEntries } from './entries-file.js';
import { indexFile, listPacks, type PackIndex } from './object-store.js';
import type { SnapshotEntry } from './snapshot-manifest.js';

export type FileEntry = Extract<SnapshotEntry, { type: 'file' }>;

/** One file as a snapshot recorded it: its entry, its line of the entries file (written again as it is when the file is unchanged), and its key as numbers (compared without making a string per file; parsed when first needed, null when the key is empty). */
export interface KeptFile {
  entry: FileEntry;
  line: string;
  stamp?: number[] | null;
}

/** One name of a directory as a snapshot listed it, with its paths made once; `file` is its record when it was captured as a file. */
export interface KeptName {
  name: string;
  rel: string;
  /** Where it was under the workspace's absolute path: only ever a hint for the fast path's lstat. */
  abs: string;
  file?: KeptFile;
}

/**
 * A directory's names as a snapshot listed them (in walk order), and the stamp of the directory
 * inode they were read from (device, inode, mtime, ctime): a directory whose stamp is unchanged
 * holds the same names, as any link, unlink or rename in it moves its ctime. '' when the listing
 * must be read again (changed just before it was listed, or read back from disk without every
 * name: listingStamp).
 */
export interface KeptDir {
  stamp: string;
  names: KeptName[];
}

/** A snapshot as a capture thread keeps it: its directories by path ('' is the root), where its root was, and how many files it holds. */
export interface KeptSnapshot {
  root: string;
  dirs: Map<string, KeptDir>;
  files: number;
}

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
  readonly #snapshots = new Map<string, KeptSnapshot>();

  /** The store's chunks, brought up to date with its packs. */
  knownChunks(storeDir: string): KnownChunks {
    let known = this.#known.get(storeDir);
    if (!known) this.#known.set(storeDir, (known = new KnownChunks()));
    known.refresh(storeDir);
    return known;
  }

  /**
   * The snapshot whose entries file is `file` with `sha256`, for a capture of the workspace now at
   * `root`: kept from the capture that made it, else read (and checked) from the file, with every
   * listing to be read again.
   */
  previous(file: string, sha256: string, root: string): KeptSnapshot {
    const kept = this.#snapshots.get(sha256);
    if (kept) return kept.root === root ? kept : rebase(kept, root);
    const text = readFileSync(file);
    const entries = parseEntries(text, sha256, file);
    const lines = text.toString('utf8').split('\n');
    const read: KeptSnapshot = { root, dirs: new Map(), files: 0 };
    const dirKeys = new Map<string, string>();
    for (const [i, e] of entries.entries()) {
      if (e.type === 'dir' && e.key) dirKeys.set(e.path, e.key);
      if (e.path === '') continue;
      const slash = e.path.lastIndexOf('/');
      const parent = slash < 0 ? '' : e.path.slice(0, slash);
      let dir = read.dirs.get(parent);
      if (!dir) read.dirs.set(parent, (dir = { stamp: '', names: [] }));
      const name: KeptName = { name: e.path.slice(slash + 1), rel: e.path, abs: `${root}/${e.path}` };
      if (e.type === 'file') {
        name.file = { entry: e, line: lines[i]! };
        read.files++;
      }
      dir.names.push(name);
    }
    for (const [rel, dir] of read.dirs) dir.stamp = listingStamp(dirKeys.get(rel), dir.names.length);
    return read;
  }

  /** The snapshot kept last. */
  get newest(): KeptSnapshot | undefined {
    let last: KeptSnapshot | undefined;
    for (const s of this.#snapshots.values()) last = s;
    return last;
  }

  /** Keep a snapshot just made, for the agent's next capture. */
  keep(sha256: string, snapshot: KeptSnapshot): void {
    // Made again (the same entries): the newest all the same.
    this.#snapshots.delete(sha256);
    this.#snapshots.set(sha256, snapshot);
    let total = 0;
    for (const s of this.#snapshots.values()) total += s.files;
    for (const [sha, s] of this.#snapshots) {
      if (total <= MAX_KEPT_FILES || this.#snapshots.size === 1) break;
      this.#snapshots.delete(sha);
      total -= s.files;
    }
  }
}

/**
 * The stamp of a listing read back from an entries file: its directory's key without the count of
 * names, when the entries hold every name the listing had. One left out (a FIFO, a file linked in
 * by another owner, a name gone before it was looked at) is in a thread's kept listing but not in
 * the entries, and a listing without it would not even look at it again: the clone check counts
 * what is left out. So such a directory is listed again ('').
 */
function listingStamp(key: string | undefined, names: number): string {
  const cut = key?.lastIndexOf(':') ?? -1;
  if (cut < 0 || Number(key!.slice(cut + 1)) !== names) return '';
  return key!.slice(0, cut);
}

/** A kept snapshot of a workspace that has moved since: the same records, with their absolute paths made again under `root`. */
function rebase(kept: KeptSnapshot, root: string): KeptSnapshot {
  const dirs = new Map<string, KeptDir>();
  for (const [rel, dir] of kept.dirs) dirs.set(rel, { stamp: dir.stamp, names: dir.names.map((n) => ({ ...n, abs: `${root}/${n.rel}` })) });
  return { root, dirs, files: kept.files };
}
