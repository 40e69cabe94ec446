// One path's entry, or one directory's entries, found in a snapshot's entries file by searching its bytes: only those lines are parsed.
import { checkEntry, sha256Hex } from './entries-file.js';
import type { SnapshotEntry } from './snapshot-manifest.js';

/**
 * Why search rather than parse: a snapshot of 54,000 files has 13 MB of entries; parsing them all
 * took 72 ms here, where searching the bytes for one path takes 4 (and hashing them, which every
 * read still does, 7). A line is `{"type":…,"path":<path as JSON>,…}`, written by JSON.stringify:
 * the key `path` comes second, and a string is always escaped alike, so `,"path":"src/a.ts",` is
 * in the file exactly where that entry is. It cannot be inside another value: a quote in a string
 * is escaped (`\"`), so an unescaped `,"path":"` is always the key itself.
 */
export class EntriesScan {
  private constructor(
    private readonly bytes: Buffer,
    private readonly shown: string,
  ) {}

  /** `bytes` after checking them against `sha256` (a torn or edited file is refused, as a full parse refuses it). */
  static of(bytes: Buffer, sha256: string, shown: string): EntriesScan {
    if (sha256Hex(bytes) !== sha256) throw new Error(`snapshot entries ${shown} do not match their recorded sha256: the store is damaged`);
    return new EntriesScan(bytes, shown);
  }

  /** The record's size in bytes (what keeping it costs). */
  get byteLength(): number {
    return this.bytes.length;
  }

  /** The entry at `path` ('' for the working directory), if the snapshot holds one. */
  entry(path: string): SnapshotEntry | undefined {
    const at = this.bytes.indexOf(`${PATH_KEY}${JSON.stringify(path)},`);
    if (at < 0) return undefined;
    const entry = this.lineAt(at);
    if (entry.path !== path) throw new Error(`snapshot entries ${this.shown}: a line does not hold the path it was found by: the store is damaged`);
    return entry;
  }

  /** The entries directly in directory `dir` ('' the working directory), in the file's order. */
  children(dir: string): SnapshotEntry[] {
    const prefix = dir === '' ? '' : `${dir}/`;
    // The prefix as it is written inside the JSON string: its opening quote, no closing one.
    const needle = Buffer.from(`${PATH_KEY}${JSON.stringify(prefix).slice(0, -1)}`);
    const found: SnapshotEntry[] = [];
    for (let at = this.bytes.indexOf(needle); at >= 0; at = this.bytes.indexOf(needle, at + needle.length)) {
      if (this.isDirectChild(at + needle.length)) found.push(this.lineAt(at));
    }
    return found;
  }

  /**
   * Whether the path whose string goes on at byte `from` (past the directory's prefix) names an
   * entry of that directory itself: a name at least one byte long, with no `/` before the
   * string's closing quote. JSON.stringify never escapes `/`, and after a backslash comes the
   * escaped character, skipped.
   */
  private isDirectChild(from: number): boolean {
    const b = this.bytes;
    for (let i = from; i < b.length; i++) {
      const c = b[i]!;
      if (c === QUOTE) return i > from;
      if (c === SLASH) return false;
      if (c === BACKSLASH) i++;
    }
    return false;
  }

  /** The entry on the line holding byte `at`, parsed and checked as a full parse checks it. */
  private lineAt(at: number): SnapshotEntry {
    const start = this.bytes.lastIndexOf(NEWLINE, at) + 1;
    const newline = this.bytes.indexOf(NEWLINE, at);
    const end = newline < 0 ? this.bytes.length : newline;
    let entry: SnapshotEntry;
    try {
      entry = JSON.parse(this.bytes.toString('utf8', start, end)) as SnapshotEntry;
    } catch {
      throw new Error(`snapshot entries ${this.shown}: a line is not JSON: the store is damaged`);
    }
    checkEntry(entry, this.shown);
    return entry;
  }
}

const PATH_KEY = ',"path":';
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
