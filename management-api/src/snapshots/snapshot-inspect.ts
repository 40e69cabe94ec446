// Looking inside snapshots without building one: what changed between two, one path's entry or a directory's entries, a file's bytes or a directory's tar streamed from the store's packs.
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { ApiError } from '../errors.js';
import type { PackReport } from '../workspace-files/tar-pack.js';
import { packSnapshotTar } from './snapshot-tar.js';
import { chunkSize, parseEntries } from './entries-file.js';
import { checkChunk, packFile, type ChunkLocation } from './object-store.js';
import { runJob } from './run-job.js';
import { EntriesScan } from './entries-scan.js';
import { browseEntries, type BrowseResult } from './snapshot-browse.js';
import { snapshotReader } from './snapshot-reader.js';
import { diffEntries, type SnapshotDiff } from './snapshot-diff.js';
import { keepWindow, pageFromWindow, WINDOW_CHANGES } from './diff-window.js';
import { CHUNK_BYTES, type SnapshotEntry, type SnapshotSummary } from './snapshot-manifest.js';
import type { SnapshotStore } from './snapshot-store.js';

type FileEntry = Extract<SnapshotEntry, { type: 'file' }>;

/**
 * The changes from snapshot `beforeId` to snapshot `afterId` (those after path `afterPath` when
 * given); large entries files are compared in a worker thread. A window of up to WINDOW_CHANGES
 * changes is computed and kept (diff-window.ts), so the pages that follow are cut from it.
 */
export async function diffSnapshots(store: SnapshotStore, beforeId: string, afterId: string, limit: number, afterPath?: string): Promise<SnapshotDiff> {
  return store.reading(async () => {
    // Looked up first: a snapshot deleted since is refused as unknown, whatever a window holds.
    const [beforeSummary, afterSummary] = [store.get(beforeId), store.get(afterId)];
    const pair = `${beforeSummary.id}\0${afterSummary.id}`;
    const kept = pageFromWindow(store, pair, limit, afterPath);
    if (kept) return kept;
    const wide = Math.max(limit, WINDOW_CHANGES);
    const [before, after] = await Promise.all([store.entriesFileOf(beforeSummary), store.entriesFileOf(afterSummary)]);
    const diff =
      before.inline && after.inline
        ? diffEntries(await entriesIn(before), await entriesIn(after), wide, afterPath)
        : await runJob({ op: 'diff', before: fileOf(before), after: fileOf(after), limit: wide, ...(afterPath === undefined ? {} : { afterPath }) });
    keepWindow(store, pair, afterPath, diff);
    return pageFromWindow(store, pair, limit, afterPath) ?? diff;
  });
}

/** The entry at `path` of snapshot `id` (its own entries with `list`, when a directory); 404 when it holds none there. */
export async function browseSnapshot(store: SnapshotStore, id: string, path: string, list: boolean): Promise<Extract<BrowseResult, { found: true }>> {
  return store.reading(async () => found(store.get(id), path, await browse(store, store.get(id), path, list, false)));
}

/** A file of snapshot `id`, its bytes as a stream: the packs it needs are opened under the store's lock, so a delete meanwhile cannot take them away. */
export async function openSnapshotFile(store: SnapshotStore, id: string, path: string): Promise<{ entry: FileEntry; tag: string; body: Readable }> {
  return store.reading(async () => {
    const s = store.get(id);
    const result = found(s, path, await browse(store, s, path, false, true));
    const { entry } = result;
    if (entry.type === 'dir')
      throw new ApiError(
        'ABX_ERR_FILE_TYPE',
        `"${path || '.'}" in snapshot ${s.id} is a directory: list it (?list; agentbox snapshot files ${s.id}${path ? ` ${path}` : ''})`,
      );
    if (entry.type === 'symlink')
      throw new ApiError('ABX_ERR_FILE_TYPE', `"${path}" in snapshot ${s.id} is a symbolic link to ${JSON.stringify(entry.target)} (links are never followed)`);
    const handles = new Map<string, FileHandle>();
    try {
      for (const loc of result.file!.locations) if (loc && !handles.has(loc.pack)) handles.set(loc.pack, await open(packFile(store.dir, loc.pack), 'r'));
    } catch (err) {
      await closeAll(handles);
      throw err;
    }
    const read = chunks(entry, result.file!.locations, handles);
    // The first chunk (a whole file up to 1 MiB, as most are) read and checked before anything is
    // answered, so damage there is a clean error, not a response cut short.
    let first: IteratorResult<Buffer>;
    try {
      first = await read.next();
    } catch (err) {
      await closeAll(handles);
      throw err;
    }
    const body = Readable.from(first.done ? read : withFirst(first.value, read), { objectMode: false });
    // On close, not in the generator's end: a stream destroyed before its first read never runs the generator's finally.
    body.once('close', () => void closeAll(handles));
    return { entry, tag: result.file!.tag, body };
  });
}

/**
 * Directory `path` of snapshot `id` packed as a tar from the store (snapshot-tar-walk.ts), settled: the
 * store's lock is held until the pack's first batch (or its failure), by when the worker has opened
 * every pack it reads, so a delete after that takes nothing from it. `mode`: the directory's own
 * (the tar holds what is below it, not the directory itself).
 */
export async function packSnapshotDir(
  store: SnapshotStore,
  id: string,
  path: string,
  report: PackReport,
): Promise<ReturnType<typeof packSnapshotTar> & { mode: number }> {
  return store.reading(async () => {
    const s = store.get(id);
    const { entry } = found(s, path, await browse(store, s, path, false, false));
    if (entry.type !== 'dir')
      throw new ApiError(
        'ABX_ERR_FILE_TYPE',
        `"${path}" in snapshot ${s.id} is not a directory: a tar is made of a directory (read a file without ?format=tar)`,
      );
    const file = await store.entriesFileOf(s);
    const packing = packSnapshotTar({ storeDir: store.dir, entriesFile: file.entriesFile, entriesSha256: file.entriesSha256, dir: path }, report);
    // Its failure is also the stream's error, emitted whether or not anyone listens yet: heard here, answered by the caller from `started`.
    packing.stream.on('error', () => undefined);
    await packing.started.catch(() => undefined);
    return { ...packing, mode: entry.mode };
  });
}

async function browse(store: SnapshotStore, s: SnapshotSummary, path: string, list: boolean, locate: boolean): Promise<BrowseResult> {
  const file = await store.entriesFileOf(s);
  // A small snapshot's entries are read here; a large one's, and a file's chunks (the store's pack indexes are searched for them), in the reader's thread.
  if (file.inline && !locate) return browseEntries(EntriesScan.of(await readFile(file.entriesFile), file.entriesSha256, file.entriesFile), path, { list });
  return snapshotReader.browse({ op: 'browse', storeDir: store.dir, ...fileOf(file), path, list, locate });
}

function found(s: SnapshotSummary, path: string, result: BrowseResult): Extract<BrowseResult, { found: true }> {
  if (result.found) return result;
  if (result.blockedBy?.type === 'symlink')
    throw new ApiError(
      'ABX_ERR_FILE_PATH',
      `"${path}" in snapshot ${s.id} passes through the symbolic link "${result.blockedBy.path}"; links are never followed`,
    );
  if (result.blockedBy) throw new ApiError('ABX_ERR_FILE_TYPE', `"${result.blockedBy.path}" in snapshot ${s.id} is not a directory`);
  throw new ApiError('ABX_ERR_NOT_FOUND', `snapshot ${s.id} holds no "${path}"; agentbox snapshot files ${s.id} lists what it holds`);
}

/**
 * A file's chunks in order, read from the open packs, each checked against the sha256 it is named
 * by; a hole is a chunk of zeros. Why check: a pack damaged on disk, or an index that points
 * amiss (the chunks are found by searching the indexes' bytes, object-store.ts), would otherwise
 * be answered as the file. Hashing costs about half a millisecond a MiB here (SHA-NI), small beside the request.
 */
async function* chunks(entry: FileEntry, locations: ReadonlyArray<ChunkLocation | null>, handles: ReadonlyMap<string, FileHandle>): AsyncGenerator<Buffer> {
  for (const [i, loc] of locations.entries()) {
    const size = chunkSize(entry.size, i, CHUNK_BYTES);
    if (!loc) {
      yield Buffer.alloc(size);
      continue;
    }
    const buf = Buffer.allocUnsafe(size);
    for (let n = 0; n < size; ) {
      const { bytesRead } = await handles.get(loc.pack)!.read(buf, n, size - n, loc.offset + n);
      if (bytesRead === 0) throw new Error(`pack ${loc.pack} is shorter than its index says: the store is damaged`);
      n += bytesRead;
    }
    checkChunk(buf, entry.chunks[i]!, `chunk ${entry.chunks[i]} of "${entry.path}" read from pack ${loc.pack}`);
    yield buf;
  }
}

/** `first`, then the rest of `rest`. */
async function* withFirst(first: Buffer, rest: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  yield* rest;
}

async function closeAll(handles: Map<string, FileHandle>): Promise<void> {
  const open = [...handles.values()];
  handles.clear();
  await Promise.all(open.map((h) => h.close().catch(() => undefined)));
}

const fileOf = (f: { entriesFile: string; entriesSha256: string }) => ({ entriesFile: f.entriesFile, entriesSha256: f.entriesSha256 });

async function entriesIn(f: { entriesFile: string; entriesSha256: string }): Promise<SnapshotEntry[]> {
  return parseEntries(await readFile(f.entriesFile), f.entriesSha256, f.entriesFile);
}
