// The content-addressed chunks of the snapshot store, in pack files: each capture appends its new chunks to one pack, indexed by sha256.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from './entries-file.js';

/**
 * Why packs, not one file per chunk: a source tree is mostly small files, and making a file costs
 * far more than writing its bytes (on a busy ext4, half a millisecond each; `cp -r` of a 200 MiB
 * tree of 10,000 files took 10 s where `tar | zstd -1` of it took 0.65 s). A capture appends its
 * new chunks to one pack and writes one index, so its cost is the reading and hashing.
 */

/**
 * Chunk bytes `data` read back from a pack, checked against the sha256 `hash` they are named by;
 * `what` names them in the error (a pack damaged on disk, or an index that points amiss).
 */
export function checkChunk(data: Uint8Array, hash: string, what: string): void {
  if (sha256Hex(data) !== hash) throw new Error(`${what} does not match its sha256: the store is damaged`);
}

/** The store's folders under its directory. */
export const storeLayout = (storeDir: string) => ({
  packs: path.join(storeDir, 'packs'),
  manifests: path.join(storeDir, 'manifests'),
  tmp: path.join(storeDir, 'tmp'),
  /** btrfs snapshots of captured working directories, one per snapshot made from a subvolume (clones.ts). */
  clones: path.join(storeDir, 'clones'),
});

/** Where a chunk is: its pack, offset and length. */
export interface ChunkLocation {
  pack: string;
  offset: number;
  length: number;
}

/** A pack's index file: hash → [offset, length]. */
export type PackIndex = Record<string, [number, number]>;

export const packFile = (storeDir: string, pack: string) => path.join(storeLayout(storeDir).packs, `${pack}.pack`);
export const indexFile = (storeDir: string, pack: string) => path.join(storeLayout(storeDir).packs, `${pack}.idx`);

/** Make the store's folders (0700: the store is the box's alone, never in an agent-readable path). */
export function ensureStoreDirs(storeDir: string): void {
  const { packs, manifests, tmp, clones } = storeLayout(storeDir);
  for (const dir of [storeDir, packs, manifests, tmp, clones]) mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Every pack with an index (a pack whose index is missing was never committed: it is swept). */
export function listPacks(storeDir: string): string[] {
  return readdirSync(storeLayout(storeDir).packs)
    .filter((n) => n.endsWith('.idx'))
    .map((n) => n.slice(0, -4))
    .sort();
}

/** Every chunk of the store by hash (a chunk in two packs, written by two captures at once, is found in the first). */
export function loadIndex(storeDir: string): Map<string, ChunkLocation> {
  const found = new Map<string, ChunkLocation>();
  for (const pack of listPacks(storeDir)) {
    let index: PackIndex;
    try {
      index = JSON.parse(readFileSync(indexFile(storeDir, pack), 'utf8')) as PackIndex;
    } catch {
      // Torn by a power loss before its snapshot was committed: no summary refers to it; the sweep removes it.
      continue;
    }
    for (const [hash, [offset, length]] of Object.entries(index)) if (!found.has(hash)) found.set(hash, { pack, offset, length });
  }
  return found;
}

/** Past this many chunks, finding each in the indexes' bytes costs more than parsing them once. */
const FEW_CHUNKS = 64;

/**
 * The locations of `hashes` (a file's chunks), as loadIndex would give them: for a few, each is
 * searched for in the indexes' bytes (`"<hash>":[offset,length]`, as JSON.stringify wrote it)
 * instead of parsing every index, which for a store of 54,000 chunks took most of the time of
 * reading one small file. A torn index (not one JSON object from `{` to `}`) is passed over as
 * loadIndex passes over it; a hash of none is absent from the map.
 */
export function findChunks(storeDir: string, hashes: readonly string[]): Map<string, ChunkLocation> {
  const wanted = new Set(hashes);
  if (wanted.size > FEW_CHUNKS) return loadIndex(storeDir);
  const found = new Map<string, ChunkLocation>();
  for (const pack of listPacks(storeDir)) {
    if (found.size === wanted.size) break;
    const bytes = readFileSync(indexFile(storeDir, pack));
    if (!looksWhole(bytes)) continue;
    for (const hash of wanted) {
      if (found.has(hash)) continue;
      const at = bytes.indexOf(`"${hash}":[`);
      if (at < 0) continue;
      const place = PLACE.exec(bytes.toString('latin1', at + hash.length + 4, at + hash.length + 4 + 48));
      if (!place) throw new Error(`pack index ${pack}.idx: the entry of chunk ${hash} is malformed: the store is damaged`);
      found.set(hash, { pack, offset: Number(place[1]), length: Number(place[2]) });
    }
  }
  return found;
}

const PLACE = /^(\d{1,16}),(\d{1,16})\]/;

/** An index written whole: `{` first and `}` last (a torn write leaves it short, or zeros at its end). */
function looksWhole(bytes: Buffer): boolean {
  let end = bytes.length - 1;
  while (end >= 0 && (bytes[end] === 0x0a || bytes[end] === 0x20)) end--;
  return bytes[0] === 0x7b && bytes[end] === 0x7d;
}

/**
 * Appends one capture's new chunks to `tmp/<pack>.pack`. The chunks already stored are looked up
 * in `known`, the store's chunks as of the capture's start (the store's lock keeps a sweep from
 * removing any meanwhile).
 * One capture's chunks are one file, so making them durable is one fsync of it (`close(true)`),
 * however many files the workspace holds; the service renames it into `packs/` with its index
 * before the snapshot's summary is written.
 */
export class PackWriter {
  readonly index: PackIndex = {};
  #fd: number | undefined;
  #offset = 0;
  addedChunks = 0;
  addedBytes = 0;

  constructor(
    private readonly storeDir: string,
    readonly pack: string,
    private readonly known: { has(hash: string): boolean },
  ) {}

  /** The pack file while it is written. */
  get tmpFile(): string {
    return path.join(storeLayout(this.storeDir).tmp, `${this.pack}.pack`);
  }

  /** Store `data` as chunk `hash` unless it is there; true when written. */
  put(hash: string, data: Uint8Array): boolean {
    if (this.known.has(hash) || this.index[hash]) return false;
    this.#fd ??= openSync(this.tmpFile, 'wx', 0o600);
    let off = 0;
    while (off < data.length) off += writeSync(this.#fd, data, off, data.length - off, this.#offset + off);
    this.index[hash] = [this.#offset, data.length];
    this.#offset += data.length;
    this.addedChunks++;
    this.addedBytes += data.length;
    return true;
  }

  /** Close the pack, flushed first when `durable`; false when nothing was written (no pack to keep). */
  close(durable: boolean): boolean {
    if (this.#fd === undefined) return false;
    try {
      if (durable) fsyncSync(this.#fd);
    } finally {
      closeSync(this.#fd);
    }
    this.#fd = undefined;
    return true;
  }
}
