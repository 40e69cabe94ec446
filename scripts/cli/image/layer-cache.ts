// Layers written once per content: a layer's key hashes its entries (path, type, mode, owner and
// the bytes of every file), so a re-run with unchanged inputs reuses the tar and its diff id
// (a rebuild that only touches modification times, like tsc's, changes nothing).
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TarWriter, type TarEntry } from './tar-writer.js';

/** A layer on disk: its tar, the sha256 of the uncompressed bytes (the diff id) and its size. */
export interface Layer {
  name: string;
  file: string;
  diffId: string;
  size: number;
  /** True when it came from the cache. */
  cached: boolean;
}

/** The key of a list of entries (see the file comment). */
export function layerKey(entries: readonly TarEntry[]): string {
  const h = createHash('sha256');
  for (const e of entries) {
    h.update(`${e.type}\0${e.path}\0${e.uid}:${e.gid}\0`);
    if (e.type === 'symlink') h.update(e.target);
    else h.update(String(e.mode));
    if (e.type === 'file') {
      h.update(`\0${e.size}\0`);
      if ('content' in e) h.update(e.content);
      else h.update(readFileSync(e.source));
    }
    h.update('\n');
  }
  return h.digest('hex');
}

/** The cached layer of `entries`, written first when absent. `progress` hears about slow writes. */
export function cachedLayer(cacheDir: string, name: string, entries: readonly TarEntry[], progress: (msg: string) => void = () => {}): Layer {
  const key = layerKey(entries);
  const dir = path.join(cacheDir, 'layers');
  const file = path.join(dir, `${name}-${key.slice(0, 32)}.tar`);
  const meta = `${file}.json`;
  if (existsSync(file) && existsSync(meta)) {
    const { diffId, size } = JSON.parse(readFileSync(meta, 'utf8')) as { diffId: string; size: number };
    // Marks it recently used, for pruning.
    const now = new Date();
    utimesSync(meta, now, now);
    return { name, file, diffId, size, cached: true };
  }
  mkdirSync(dir, { recursive: true });
  const bytes = entries.reduce((n, e) => n + (e.type === 'file' ? e.size : 0), 0);
  progress(`writing layer ${name}: ${entries.length} entries, ${(bytes / 1e6).toFixed(0)} MB`);
  // Written under a temporary name and renamed: a concurrent build never reads half a layer.
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  let result: { sha256: string; size: number };
  try {
    const tar = new TarWriter(fd);
    for (const e of entries) tar.add(e);
    result = tar.finish();
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify({ diffId: `sha256:${result.sha256}`, size: result.size }));
  renameSync(tmp, file);
  renameSync(`${meta}.${process.pid}.tmp`, meta);
  prune(dir, name);
  return { name, file, diffId: `sha256:${result.sha256}`, size: result.size, cached: false };
}

/** How many layers of one name the cache keeps (the most recently used): each rebuild of dist/ makes a new app layer. */
export const KEEP_PER_NAME = 3;

/** Remove the layers of `name` beyond the KEEP_PER_NAME most recently used. */
function prune(dir: string, name: string): void {
  const metas = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}-`) && f.endsWith('.tar.json'))
    .map((f) => ({ f, used: statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const { f } of metas.slice(KEEP_PER_NAME)) {
    rmSync(path.join(dir, f), { force: true });
    rmSync(path.join(dir, f.slice(0, -'.json'.length)), { force: true });
  }
}
