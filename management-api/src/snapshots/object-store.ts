// The content-addressed objects of the snapshot store: one file per chunk, named by its sha256, written under a temporary name then renamed.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The store's folders under its directory. */
export const storeLayout = (storeDir: string) => ({
  objects: path.join(storeDir, 'objects'),
  manifests: path.join(storeDir, 'manifests'),
  tmp: path.join(storeDir, 'tmp'),
});

/** Where the object of `hash` lives: 256 fan-out folders by its first two hex digits. */
export function objectPath(storeDir: string, hash: string): string {
  return path.join(storeDir, 'objects', hash.slice(0, 2), hash);
}

/** Every object hash in the store (the 256 folders listed). */
export function listObjects(storeDir: string): Set<string> {
  const found = new Set<string>();
  const { objects } = storeLayout(storeDir);
  for (const fan of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(fan)) continue;
    for (const name of readdirSync(path.join(objects, fan))) if (/^[0-9a-f]{64}$/.test(name)) found.add(name);
  }
  return found;
}

/** Make the store's folders (0700: the store is the box's alone, never in an agent-readable path). */
export function ensureStoreDirs(storeDir: string): void {
  const { objects, manifests, tmp } = storeLayout(storeDir);
  for (const dir of [storeDir, objects, manifests, tmp]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < 256; i++) mkdirSync(path.join(objects, i.toString(16).padStart(2, '0')), { recursive: true, mode: 0o700 });
}

/**
 * Writes objects for one capture. The objects already stored are listed once at the start (the
 * store's lock keeps a sweep from removing any meanwhile), so a chunk seen before costs a set
 * lookup, not a stat. A new object goes to `tmp/` first and is renamed into place whole: a kill
 * mid-write leaves a temporary file, never a short object under a hash. Objects are not flushed
 * one by one; the service flushes the filesystem once before the snapshot's summary is written.
 */
export class ObjectWriter {
  readonly #known: Set<string>;
  addedChunks = 0;
  addedBytes = 0;

  constructor(private readonly storeDir: string) {
    this.#known = listObjects(storeDir);
  }

  /** Store `data` as object `hash` unless it is there; true when written. */
  put(hash: string, data: Uint8Array): boolean {
    if (this.#known.has(hash)) return false;
    const tmp = path.join(this.storeDir, 'tmp', `obj-${randomBytes(8).toString('hex')}`);
    const fd = openSync(tmp, 'wx', 0o400);
    try {
      let off = 0;
      while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    } catch (err) {
      closeSync(fd);
      unlinkSync(tmp);
      throw err;
    }
    closeSync(fd);
    renameSync(tmp, objectPath(this.storeDir, hash));
    this.#known.add(hash);
    this.addedChunks++;
    this.addedBytes += data.length;
    return true;
  }
}
