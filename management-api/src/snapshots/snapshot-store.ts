// The snapshot store under the box's state directory: snapshots made, listed, read back into a directory, deleted with a mark-and-sweep of their objects.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { access, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import type { Logger } from 'pino';
import { syncDirectory } from '../durable-fs.js';
import { ApiError } from '../errors.js';
import { DEFAULT_MAX_HOLE_BYTES, TOO_SPARSE } from '../workspace-files/hole-allowance.js';
import { TOO_DEEP } from '../workspace-files/tree-depth.js';
import { RACY_MS } from './capture.js';
import { MAX_SNAPSHOT_ENTRIES, TOO_MANY_ENTRIES } from './capture-entries-cap.js';
import { CAPTURE_HEAP_MIB, CaptureWorkers } from './capture-workers.js';
import { parseEntries } from './entries-file.js';
import { chunkListMap, chunkSizesOf, INLINE_ENTRIES_BYTES, THREAD_ENTRIES_BYTES } from './chunk-list.js';
import { ensureStoreDirs, indexFile, listPacks, packFile, storeLayout, type PackIndex } from './object-store.js';
import { runJob, JobError } from './run-job.js';
import { holeBytesOf, MANIFEST_FORMAT, SNAPSHOT_ID, type SnapshotEntry, type SnapshotSummary } from './snapshot-manifest.js';
import type { SnapshotMetrics } from './snapshot-metrics.js';
import type { CaptureJob, CaptureResult, MaterializeResult } from './snapshot-protocol.js';
import { BuildRoom } from './build-room.js';
import { SnapshotClones } from './clones.js';
import { writeBackWhileWritten } from './pack-writeback.js';
import { StoreLock } from './store-lock.js';
import type { Subvolumes } from '../sandbox/subvolumes.js';

export interface SnapshotStoreOptions {
  /** The store's directory: under the box's state directory, never in an agent-readable path. */
  dir: string;
  logger: Logger;
  metrics?: SnapshotMetrics;
  /**
   * fsync the capture's pack and index (and the entries and summary, always) before the summary
   * is renamed into place, so a power loss cannot leave a listed snapshot whose chunks never
   * reached the disk. Default true; the bench turns it off to show its cost.
   */
  durable?: boolean;
  /** Files changed this close to their read are read again by the next snapshot (default RACY_MS); the tests widen it to see that happen. */
  racyMs?: number;
  /** The heap of each capture thread, in MiB (default CAPTURE_HEAP_MIB): a capture that needs more fails alone with 413. */
  captureHeapMiB?: number;
  /** Entries one capture may walk (default MAX_SNAPSHOT_ENTRIES); the tests lower it to meet it with a small tree. */
  maxCaptureEntries?: number;
  /** The btrfs operations of clones (clones.ts); the installation's launcher when absent. */
  subvolumes?: Subvolumes;
  /** Entries files up to this many bytes are read on the API's thread, larger ones in worker threads (default INLINE_ENTRIES_BYTES); the tests set 0 to see every one read in a thread. */
  inlineEntriesBytes?: number;
}

/** The working directory to capture, open, and whose it is. */
export interface CaptureSource {
  rootFd: number;
  ownUid: number;
  agent: { id: string; name: string; cwd: string };
  /**
   * Bytes the snapshot may still be charged to its agent's disk budget, when one applies (a
   * snapshot by the agent's own token). A clone may come to hold every byte of the snapshot's
   * files on its own, so it is kept only when the bytes the capture added and the files' size both
   * fit; otherwise the snapshot is kept without it (and forks of it copy).
   */
  allowanceBytes?: number;
  /** Bytes of holes in sparse files the capture may read through (CaptureJob.maxHoleBytes): the agent's disk budget; DEFAULT_MAX_HOLE_BYTES without one. */
  maxHoleBytes?: number;
  /** Entries the capture may walk: the agent's entry budget (limits.entries); the store's maxCaptureEntries without one. */
  maxEntries?: number;
}

/** Bytes a snapshot holds once deduplicated, and how much of it other snapshots hold too. */
export interface SnapshotSharing {
  storedBytes: number;
  /** Bytes of chunks another snapshot also refers to. */
  sharedBytes: number;
  /** Bytes only this snapshot refers to: what deleting it frees. */
  exclusiveBytes: number;
  /** Bytes of the chunks it is the oldest snapshot to refer to: what it is charged (an agent's own snapshots, against its disk budget). */
  chargedBytes: number;
}

/** Snapshot `s`'s charge in `charges`; one made since they were worked out is the newest, and pays for what it added (no chunk an older one holds). */
const chargeIn = (charges: ReadonlyMap<string, number>, s: SnapshotSummary): number => charges.get(s.id) ?? s.stats.addedBytes;

const summaryFile = (dir: string, id: string) => path.join(storeLayout(dir).manifests, `${id}.json`);
const entriesFile = (dir: string, id: string) => path.join(storeLayout(dir).manifests, `${id}.entries`);

/**
 * A snapshot is two files in `manifests/`: its entries, then its summary (which records the
 * entries' sha256), each written to `tmp/` and renamed into place; the summary's rename is the
 * commit. A kill at any point leaves temporary files (cleared at the next open) and objects no
 * summary refers to (swept), never a summary of a snapshot whose parts are missing.
 */
export class SnapshotStore {
  readonly #lock = new StoreLock();
  readonly #summaries = new Map<string, SnapshotSummary>();
  /**
   * The store may hold something a sweep would remove: until the open's sweep is done, and from any
   * operation that failed (a capture's pack or clone left behind). Closed while false, the store
   * leaves TIDY_MARKER, and its next open skips the sweep.
   */
  #untidy = true;
  /** An operation failed since the open: the open's sweep, when it ends, does not make the store tidy. */
  #failedSinceOpen = false;
  #closing = false;
  /** The open's sweep, in the background: a close waits for it. */
  #openSweep: Promise<void> = Promise.resolve();
  /** Operations under way (#measure): a store closed while one runs is not judged tidy. */
  readonly #running = new Set<Promise<unknown>>();
  /** Snapshots referring to each chunk (#chunkRefs), and a count of the creates and deletes that change them. */
  #refs: Map<string, number> | undefined;
  /**
   * Snapshots made since #refs was built, not counted in it yet: their entries are read when the
   * counts are next asked for, not by the create (parsing a large tree's entries takes the API's
   * thread for a tenth of a second or more).
   */
  #refsPending: SnapshotSummary[] = [];
  /** The one reading of #refsPending going, which later askers wait on. */
  #refsCatchingUp: Promise<void> | undefined;
  #generation = 0;
  /** holeBytes of snapshots whose summaries predate it, counted from their entries (#withHoleBytes). */
  readonly #olderHoleBytes = new Map<string, number>();
  readonly #dir: string;
  readonly #captureHeapMiB: number;
  readonly #captures: CaptureWorkers;
  /** Builds (restores and forks) running: a build splits its files over threads only when it is alone. */
  #building = 0;
  /** What the copying builds under way will write to the workspace volume. */
  readonly #buildRoom = new BuildRoom();
  readonly #clones: SnapshotClones;
  /** Snapshots that keep a clone. */
  readonly #cloned = new Set<string>();
  /**
   * What each snapshot pays for in the store (#liveChunks): every chunk is paid for by the oldest
   * snapshot that refers to it. Made by every sweep (at open and after each delete), so a delete
   * hands the chunks it paid for to the next oldest snapshot that still refers to them; a create
   * adds what it added (the newest pays for no chunk an older one holds). Undefined until the open's
   * sweep, or after a sweep that failed: made again when asked for.
   */
  #charges: Map<string, number> | undefined;

  constructor(private readonly options: SnapshotStoreOptions) {
    this.#dir = options.dir;
    this.#clones = new SnapshotClones(options.dir, options.logger, options.subvolumes);
    this.#captureHeapMiB = options.captureHeapMiB ?? CAPTURE_HEAP_MIB;
    this.#captures = new CaptureWorkers(this.#captureHeapMiB);
  }

  get dir(): string {
    return this.#dir;
  }

  /**
   * Make the folders, clear what a killed run left in `tmp/`, read the summaries; objects no summary
   * refers to are swept in the background, unless the store was closed tidy (TIDY_MARKER).
   */
  async open(): Promise<void> {
    ensureStoreDirs(this.#dir);
    const { tmp, manifests } = storeLayout(this.#dir);
    const tidy = await access(tidyMarker(this.#dir)).then(
      () => true,
      () => false,
    );
    for (const name of await readdir(tmp)) await this.#clones.remove(path.join(tmp, name));
    // The marker gone for good before anything is written: a kill from here on leaves a store the next open sweeps.
    if (tidy) await syncDirectory(tmp);
    for (const name of await readdir(manifests)) {
      if (!name.endsWith('.json')) continue;
      try {
        const summary = JSON.parse(await readFile(path.join(manifests, name), 'utf8')) as SnapshotSummary;
        if (summary.format !== MANIFEST_FORMAT || `${summary.id}.json` !== name) throw new Error(`format ${summary.format}, id ${summary.id}`);
        this.#summaries.set(summary.id, summary);
      } catch (err) {
        this.options.logger.error({ event: 'SnapshotSummaryUnreadable', file: name, err }, `snapshot summary ${name} cannot be read; it is not listed`);
      }
    }
    for (const name of await readdir(storeLayout(this.#dir).clones).catch(() => [] as string[])) if (this.#summaries.has(name)) this.#cloned.add(name);
    this.options.metrics?.count.set(this.#summaries.size);
    if (tidy) {
      this.#untidy = false;
      return;
    }
    this.#openSweep = this.sweep()
      // Clones of snapshots a kill left without a summary; under the lock, as a capture's clone has none until it commits.
      .then(() => this.#lock.exclusive(() => this.#clones.sweep(new Set(this.#summaries.keys()))))
      .then(() => {
        // Unless an operation failed meanwhile.
        if (!this.#failedSinceOpen) this.#untidy = false;
      })
      .catch((err: unknown) => this.options.logger.error({ event: 'SnapshotSweepFailed', err }, 'the snapshot store sweep failed'));
  }

  /**
   * End the capture threads (what they keep goes with them), and leave TIDY_MARKER when there is
   * nothing to sweep: the open's sweep done (waited for), no operation failed, and none under way
   * (a build of a large snapshot may run for seconds: a close does not wait for it, and the next
   * open sweeps instead).
   */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#captures.close();
    await this.#openSweep;
    if (this.#untidy || this.#running.size > 0) return;
    // At most once: a second close finds the store untidy.
    this.#untidy = true;
    await writeTidyMarker(this.#dir).catch((err: unknown) =>
      this.options.logger.warn({ event: 'SnapshotStoreTidyMarkerFailed', err }, 'the snapshot store will be swept at its next open'),
    );
  }

  /** Every snapshot, oldest first. */
  list(): SnapshotSummary[] {
    return [...this.#summaries.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /**
   * Whether snapshot `id` keeps a clone (btrfs): its forks and restores are made in constant time,
   * and it may come to hold up to its files' size on the volume as the agent's directory changes.
   */
  hasClone(id: string): boolean {
    return this.#cloned.has(id);
  }

  /** One snapshot's summary; 404 when unknown. */
  get(id: string): SnapshotSummary {
    const s = SNAPSHOT_ID.test(id) ? this.#summaries.get(id) : undefined;
    if (!s) throw new ApiError('ABX_ERR_NOT_FOUND', `snapshot ${JSON.stringify(id)} not found`);
    return s;
  }

  /**
   * Run `fn` under the store's lock, shared with captures and builds: no delete's sweep removes an
   * entries file or pack it reads meanwhile (snapshot-inspect.ts reads inside snapshots so).
   */
  reading<T>(fn: () => Promise<T>): Promise<T> {
    return this.#lock.shared(fn);
  }

  /**
   * Bytes snapshot `s`'s record takes in `manifests/` (its entries and summary files): a snapshot of
   * an unchanged tree adds no chunk, yet writes an entries file of about 250 bytes a file (13 MB
   * for 54,000 files). 0 once deleted.
   */
  async recordBytes(s: SnapshotSummary): Promise<number> {
    const sizes = await Promise.all(
      [entriesFile(this.#dir, s.id), summaryFile(this.#dir, s.id)].map((f) =>
        stat(f).then(
          (st) => st.size,
          () => 0,
        ),
      ),
    );
    return sizes[0]! + sizes[1]!;
  }

  /** Snapshot `s`'s entries file, and whether it is small enough to read on the caller's thread. */
  async entriesFileOf(s: SnapshotSummary): Promise<{ entriesFile: string; entriesSha256: string; inline: boolean }> {
    const file = entriesFile(this.#dir, s.id);
    const { size } = await stat(file);
    return { entriesFile: file, entriesSha256: s.entriesSha256, inline: size <= (this.options.inlineEntriesBytes ?? INLINE_ENTRIES_BYTES) };
  }

  /** Capture a working directory. Files unchanged since the agent's previous snapshot (same stat key) reuse its chunks unread. */
  async create(source: CaptureSource, label?: string): Promise<SnapshotSummary> {
    return this.#measure('create', () =>
      this.#lock.shared(async () => {
        const started = performance.now();
        const id = `snp_${randomBytes(9).toString('base64url')}`;
        const previous = this.list()
          .filter((s) => s.agent.id === source.agent.id && s.agent.cwd === source.agent.cwd)
          .at(-1);
        const { tmp } = storeLayout(this.#dir);
        const prior = previous ? { entriesFile: entriesFile(this.#dir, previous.id), entriesSha256: previous.entriesSha256 } : undefined;
        const result = await this.#capture(source, id, prior);
        if (result.packed) {
          // The pack, then its index: a pack is part of the store once its index is in packs/.
          await rename(path.join(tmp, `${id}.pack`), packFile(this.#dir, id));
          await rename(path.join(tmp, `${id}.idx`), indexFile(this.#dir, id));
          if (this.options.durable !== false) await syncDirectory(storeLayout(this.#dir).packs);
        }
        const entries = Buffer.from(result.entriesText.buffer, result.entriesText.byteOffset, result.entriesText.byteLength);
        await this.#writeFile(entriesFile(this.#dir, id), entries);
        const summary: SnapshotSummary = {
          format: MANIFEST_FORMAT,
          id,
          ...(label !== undefined ? { label } : {}),
          createdAt: new Date().toISOString(),
          agent: source.agent,
          owner: 'target-agent',
          stats: { ...result.stats, durationMs: Math.round(performance.now() - started) },
          changedPaths: result.changedPaths,
          entriesSha256: result.entriesSha256,
        };
        await this.#writeFile(summaryFile(this.#dir, id), Buffer.from(JSON.stringify(summary)));
        this.#summaries.set(id, summary);
        this.#charges?.set(id, result.stats.addedBytes);
        if (result.cloneKept) this.#cloned.add(id);
        this.#generation++;
        if (this.#refs) this.#refsPending.push(summary);
        this.options.metrics?.count.set(this.#summaries.size);
        this.options.metrics?.addedBytes.inc(result.stats.addedBytes);
        return summary;
      }),
    );
  }

  /**
   * One capture into `tmp/<id>.pack`. On btrfs a read-only clone of the directory is taken first,
   * and kept as the snapshot's when the walk finds it holds what was read (CaptureResult.cloneFit).
   * What a failed capture wrote, its clone included, is removed.
   */
  async #capture(source: CaptureSource, id: string, previous: CaptureJob['previous']): Promise<CaptureResult & { cloneKept: boolean }> {
    const { tmp } = storeLayout(this.#dir);
    const durable = this.options.durable !== false;
    // Taken before the walk, whether or not the agent's budget will let it be kept: only the walk tells the files' size.
    const clone = await this.#clones.take(source.rootFd, id);
    const writeBack = durable ? writeBackWhileWritten(path.join(tmp, `${id}.pack`)) : undefined;
    const result = await this.#captures
      .run(
        {
          op: 'capture',
          rootFd: source.rootFd,
          ...(clone ? { clonedAtMs: clone.takenAtMs, cloneFd: clone.fd } : {}),
          ownUid: source.ownUid,
          storeDir: this.#dir,
          pack: id,
          durable,
          racyMs: this.options.racyMs ?? RACY_MS,
          maxHoleBytes: source.maxHoleBytes ?? DEFAULT_MAX_HOLE_BYTES,
          maxEntries: source.maxEntries ?? this.options.maxCaptureEntries ?? MAX_SNAPSHOT_ENTRIES,
          ...(previous ? { previous } : {}),
        },
        source.agent.id,
      )
      .finally(async () => {
        writeBack?.stop();
        await clone?.close();
      })
      .catch(async (err: unknown) => {
        await rm(path.join(tmp, `${id}.pack`), { force: true });
        await rm(path.join(tmp, `${id}.idx`), { force: true });
        if (clone) await this.#clones.discard(id);
        throw err;
      });
    // Kept unless a build would make something else, or it could outgrow the agent's budget; a kill before the summary leaves a clone the next open removes.
    const fitsBudget = source.allowanceBytes === undefined || result.stats.addedBytes + result.stats.bytes <= source.allowanceBytes;
    if (clone && result.cloneFit && !fitsBudget)
      this.options.logger.info(
        { event: 'SnapshotCloneOverBudget', snapshot: id, agent: source.agent.id, bytes: result.stats.bytes, allowanceBytes: source.allowanceBytes },
        "the snapshot's clone could outgrow what is left of the agent's disk budget; it is not kept, and forks of the snapshot copy",
      );
    const cloneKept = clone !== undefined && result.cloneFit === true && fitsBudget;
    if (clone && !cloneKept) await this.#clones.discard(id);
    return { ...result, cloneKept };
  }

  /**
   * Build snapshot `id` in the new directory `target` (private while built), given to `owner`.
   * `room`: what the target's volume may still take (DiskGuard.headroom); a build that copies is
   * refused before it writes anything when it would not fit beside the builds under way (BuildRoom).
   */
  async materialize(
    id: string,
    target: string,
    owner: { uid: number; gid: number } | undefined,
    /** What the build is for, as the metrics label it: a warm fork's copy is built before any fork asks. */
    operation: 'restore' | 'fork' | 'warm',
    room?: () => Promise<number>,
  ): Promise<MaterializeResult> {
    return this.#measure(operation, () =>
      this.#lock.shared(async () => {
        const s = this.get(id);
        const cloned = await this.#clones.build(id, target, owner);
        if (cloned === 'regive')
          await runJob({ op: 'regive-clone', target, entriesFile: entriesFile(this.#dir, id), entriesSha256: s.entriesSha256, owner: owner! });
        if (cloned) return { files: s.stats.files, dirs: s.stats.dirs + 1, symlinks: s.stats.symlinks, bytes: s.stats.bytes, cloned: true };
        const copy = async (written?: SharedArrayBuffer) => {
          // Alone, a build may use every core (up to 4); builds at once (ten forks) already share them.
          const threads = this.#building === 0 ? Math.min(4, availableParallelism()) : 1;
          this.#building++;
          try {
            return await runJob({
              op: 'materialize',
              storeDir: this.#dir,
              entriesFile: entriesFile(this.#dir, id),
              entriesSha256: s.entriesSha256,
              target,
              ...(owner ? { owner } : {}),
              threads,
              ...(written ? { written } : {}),
            });
          } finally {
            this.#building--;
          }
        };
        return room ? this.#buildRoom.run(await this.#withHoleBytes(s), room, copy) : copy();
      }),
    );
  }

  /**
   * Give a whole build of snapshot `id` made for the box (a warm fork, warm-forks.ts) to `owner`:
   * every entry its entries list chowned, no byte copied (regive-clone.ts).
   */
  async regive(id: string, target: string, owner: { uid: number; gid: number }): Promise<void> {
    await this.#lock.shared(async () => {
      const s = this.get(id);
      await runJob({ op: 'regive-clone', target, entriesFile: entriesFile(this.#dir, id), entriesSha256: s.entriesSha256, owner });
    });
  }

  /** Bytes the snapshot holds, shares with others, and holds alone: its own entries against the store's chunk reference counts. */
  async sharing(id: string): Promise<SnapshotSharing> {
    return this.#lock.shared(async () => {
      const s = this.get(id);
      const own = await this.#chunkSizes(s);
      const refs = await this.#chunkRefs();
      const chargedBytes = chargeIn(await this.#chargesLocked(), s);
      let storedBytes = 0;
      let sharedBytes = 0;
      for (const [h, size] of own) {
        storedBytes += size;
        if ((refs.get(h) ?? 0) > 1) sharedBytes += size;
      }
      return { storedBytes, sharedBytes, exclusiveBytes: storedBytes - sharedBytes, chargedBytes };
    });
  }

  /**
   * How many snapshots refer to each chunk: read from every snapshot's entries once, then kept up
   * to date by each create and dropped by each delete (rare; the next read builds it again). A
   * build that a create or delete overtook is used for its caller but not kept.
   */
  async #chunkRefs(): Promise<Map<string, number>> {
    const kept = this.#refs;
    if (kept) {
      // Deletes, the only other change to the counts, wait for the exclusive lock: no caller here is overtaken by one.
      this.#refsCatchingUp ??= this.#countPending(kept).finally(() => (this.#refsCatchingUp = undefined));
      await this.#refsCatchingUp;
      return kept;
    }
    const generation = this.#generation;
    const refs = new Map<string, number>();
    for await (const [, sizes] of this.#chunkSizesEach(this.list())) for (const h of sizes.keys()) refs.set(h, (refs.get(h) ?? 0) + 1);
    if (generation === this.#generation) this.#refs = refs;
    return refs;
  }

  /**
   * `s` with its holeBytes, which summaries record since a later version: for an older snapshot,
   * counted from its entries (once, then kept), so a build of it is not refused for room its
   * holes never take.
   */
  async #withHoleBytes(s: SnapshotSummary): Promise<SnapshotSummary> {
    if (s.stats.holeBytes !== undefined) return s;
    let holeBytes = this.#olderHoleBytes.get(s.id);
    if (holeBytes === undefined) {
      holeBytes = 0;
      for (const e of await this.#entriesOf(s)) if (e.type === 'file') holeBytes += holeBytesOf(e.chunks, e.size);
      this.#olderHoleBytes.set(s.id, holeBytes);
    }
    return { ...s, stats: { ...s.stats, holeBytes } };
  }

  /** Count the chunks of the snapshots made since `refs` was built, those made meanwhile too. */
  async #countPending(refs: Map<string, number>): Promise<void> {
    try {
      for (let s = this.#refsPending.shift(); s; s = this.#refsPending.shift())
        for (const h of (await this.#chunkSizes(s)).keys()) refs.set(h, (refs.get(h) ?? 0) + 1);
    } catch (err) {
      // A snapshot whose entries cannot be read is missing from `refs`: the counts are dropped, and built again when next asked for.
      if (this.#refs === refs) {
        this.#refs = undefined;
        this.#refsPending = [];
      }
      throw err;
    }
  }

  /** Delete a snapshot and sweep the objects no other snapshot refers to; answers with the bytes freed. */
  async delete(id: string): Promise<{ freedBytes: number; freedChunks: number }> {
    return this.#measure('delete', async () => {
      const freed = await this.#lock.exclusive(async () => {
        this.get(id);
        // The summary goes first: from then on the snapshot does not exist, whatever the rest of the delete meets.
        await unlink(summaryFile(this.#dir, id));
        this.#summaries.delete(id);
        this.#cloned.delete(id);
        this.#olderHoleBytes.delete(id);
        this.#generation++;
        this.#refs = undefined;
        this.#refsPending = [];
        // Made again by the sweep below; a sweep that fails leaves them to be made when asked for.
        this.#charges = undefined;
        this.options.metrics?.count.set(this.#summaries.size);
        await syncDirectory(storeLayout(this.#dir).manifests);
        await rm(entriesFile(this.#dir, id), { force: true });
        return this.#sweepLocked();
      });
      // Out of the lock: without privilege a clone goes entry by entry, and forks need not wait for that.
      await this.#clones.discard(id);
      return freed;
    });
  }

  /** Remove objects and entries files no summary refers to (after a kill or a failed capture). */
  async sweep(): Promise<{ freedBytes: number; freedChunks: number }> {
    return this.#lock.exclusive(() => this.#sweepLocked());
  }

  /**
   * Mark every chunk a snapshot refers to, then sweep each pack: one with no live chunk is
   * removed, one with dead chunks is rewritten with its live ones only (the new pack and index
   * in place before the old ones go, so a kill in between leaves a chunk twice, never nowhere).
   * Packs without an index (a capture killed between the two renames) and entries files
   * without a summary are removed.
   */
  async #sweepLocked(): Promise<{ freedBytes: number; freedChunks: number }> {
    const { live, charges } = await this.#liveChunks();
    this.#charges = charges;
    let freedBytes = 0;
    let freedChunks = 0;
    const packs = listPacks(this.#dir);
    for (const pack of packs) {
      const index = await readFile(indexFile(this.#dir, pack), 'utf8')
        .then((text) => JSON.parse(text) as PackIndex)
        .catch(() => ({}) as PackIndex);
      const entries = Object.entries(index);
      if (entries.length === 0) {
        // Torn or empty: nothing a summary can rely on.
        await rm(indexFile(this.#dir, pack), { force: true });
        await rm(packFile(this.#dir, pack), { force: true });
        continue;
      }
      const kept = entries.filter(([h]) => live.has(h));
      if (kept.length === entries.length) continue;
      for (const [h, [, length]] of entries) {
        if (live.has(h)) continue;
        freedBytes += length;
        freedChunks++;
      }
      if (kept.length > 0) await this.#repack(pack, kept);
      await unlink(indexFile(this.#dir, pack));
      await unlink(packFile(this.#dir, pack));
    }
    const { manifests, packs: packDir } = storeLayout(this.#dir);
    const indexed = new Set(listPacks(this.#dir));
    for (const name of await readdir(packDir))
      if (name.endsWith('.pack') && !indexed.has(name.slice(0, -5))) await rm(path.join(packDir, name), { force: true });
    for (const name of await readdir(manifests)) {
      const id = name.replace(/\.(json|entries)$/, '');
      if (!this.#summaries.has(id)) await rm(path.join(manifests, name), { force: true });
    }
    this.options.metrics?.freedBytes.inc(freedBytes);
    if (freedChunks > 0) this.options.logger.info({ event: 'SnapshotChunksSwept', freedChunks, freedBytes }, 'unreferenced snapshot chunks removed');
    return { freedBytes, freedChunks };
  }

  /** Copy the `kept` chunks of `pack` into a new pack, in place with its index before the caller removes the old one. */
  async #repack(pack: string, kept: Array<[string, [number, number]]>): Promise<void> {
    const id = `pck_${randomBytes(9).toString('base64url')}`;
    const { tmp } = storeLayout(this.#dir);
    const src = await open(packFile(this.#dir, pack), 'r');
    const dst = await open(path.join(tmp, `${id}.pack`), 'wx', 0o600);
    const index: PackIndex = {};
    try {
      let at = 0;
      for (const [hash, [offset, length]] of kept) {
        const buf = Buffer.allocUnsafe(length);
        const { bytesRead } = await src.read(buf, 0, length, offset);
        if (bytesRead !== length) throw new Error(`pack ${pack} is shorter than its index says: the store is damaged`);
        await dst.write(buf, 0, length, at);
        index[hash] = [at, length];
        at += length;
      }
      await dst.sync();
    } catch (err) {
      // A full disk, most often: the part copied goes with it (closed just below).
      await unlink(path.join(tmp, `${id}.pack`)).catch(() => undefined);
      throw err;
    } finally {
      await src.close();
      await dst.close();
    }
    await rename(path.join(tmp, `${id}.pack`), packFile(this.#dir, id));
    await this.#writeFile(indexFile(this.#dir, id), Buffer.from(JSON.stringify(index)));
  }

  /**
   * What each snapshot is charged for what the store holds: the bytes of the chunks it is the oldest
   * to refer to. They add up to every chunk a snapshot refers to, whatever was deleted before.
   */
  async charges(): Promise<(s: SnapshotSummary) => number> {
    // Under the lock: after the open's sweep, and never during a delete's.
    const charges = await this.#lock
      .shared(() => this.#chargesLocked())
      .catch((err: unknown) => {
        // A damaged entries file (the sweep refuses to run too): each is charged what it added, and the operator told.
        this.options.logger.error(
          { event: 'SnapshotChargesUnknown', err },
          "the snapshots' charges cannot be worked out (an entries file cannot be read): each is charged what it added when made",
        );
        return new Map<string, number>();
      });
    return (s) => chargeIn(charges, s);
  }

  /** #charges, made when missing; the caller holds the lock. */
  async #chargesLocked(): Promise<Map<string, number>> {
    this.#charges ??= (await this.#liveChunks()).charges;
    return this.#charges;
  }

  /** Every chunk a snapshot refers to, and each snapshot's charge: a chunk paid for by the first snapshot, oldest first, found to refer to it. */
  async #liveChunks(): Promise<{ live: Set<string>; charges: Map<string, number> }> {
    const live = new Set<string>();
    const charges = new Map<string, number>();
    for await (const [s, sizes] of this.#chunkSizesEach(this.list())) {
      let paid = 0;
      for (const [h, size] of sizes) {
        if (live.has(h)) continue;
        live.add(h);
        paid += size;
      }
      charges.set(s.id, paid);
    }
    return { live, charges };
  }

  /** Bytes the store's packs hold on disk. */
  async storedBytes(): Promise<number> {
    let total = 0;
    for (const pack of listPacks(this.#dir)) total += (await stat(packFile(this.#dir, pack))).size;
    return total;
  }

  /** Snapshot `s`'s entries, read back and checked against its summary's sha256. */
  async #entriesOf(s: SnapshotSummary): Promise<SnapshotEntry[]> {
    const file = entriesFile(this.#dir, s.id);
    return parseEntries(await readFile(file), s.entriesSha256, file) as SnapshotEntry[];
  }

  /** Snapshot `s`'s distinct chunks and their sizes. */
  async #chunkSizes(s: SnapshotSummary): Promise<Map<string, number>> {
    for await (const [, sizes] of this.#chunkSizesEach([s])) return sizes;
    throw new Error('unreachable: one snapshot asked, one answered');
  }

  /**
   * Each of `list` with its distinct chunks and their sizes, in order. Small entries files are read
   * here; large ones in worker threads, several to a thread (chunk-list.ts), so the API's thread
   * never parses one.
   */
  async *#chunkSizesEach(list: readonly SnapshotSummary[]): AsyncGenerator<[SnapshotSummary, Map<string, number>]> {
    let batch: Array<{ s: SnapshotSummary; file: string }> = [];
    let batchBytes = 0;
    for (const s of list) {
      const file = entriesFile(this.#dir, s.id);
      const { size } = await stat(file);
      // Answered in order: the large ones before it go first.
      const inline = size <= (this.options.inlineEntriesBytes ?? INLINE_ENTRIES_BYTES);
      if (batch.length > 0 && (inline || batchBytes + size > THREAD_ENTRIES_BYTES)) {
        yield* this.#readInThread(batch);
        batch = [];
        batchBytes = 0;
      }
      if (inline) yield [s, chunkSizesOf(await this.#entriesOf(s))];
      else {
        batch.push({ s, file });
        batchBytes += size;
      }
    }
    if (batch.length > 0) yield* this.#readInThread(batch);
  }

  /** The chunks of large entries files, read in one worker thread. */
  async *#readInThread(batch: ReadonlyArray<{ s: SnapshotSummary; file: string }>): AsyncGenerator<[SnapshotSummary, Map<string, number>]> {
    const lists = await runJob({ op: 'chunk-list', files: batch.map(({ s, file }) => ({ entriesFile: file, entriesSha256: s.entriesSha256 })) });
    for (const [i, { s }] of batch.entries()) {
      // A turn of the event loop between two: made into a map and counted one at a time, as the caller takes them, so requests are answered in between.
      if (i > 0) await setImmediatePromise();
      yield [s, chunkListMap(lists[i]!)];
    }
  }

  /** Write `data` to `tmp/`, flush it, rename it to `file` and flush the folder: whole or absent. */
  async #writeFile(file: string, data: Uint8Array): Promise<void> {
    const tmp = path.join(storeLayout(this.#dir).tmp, `${path.basename(file)}.${randomBytes(6).toString('hex')}`);
    const handle = await open(tmp, 'wx', 0o600);
    try {
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, file);
    } catch (err) {
      // A full disk, most often: the part written goes with it.
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await syncDirectory(path.dirname(file));
  }

  /** Time and count an operation; a full disk becomes 507 and what the failed capture stored is swept; a capture thread out of memory or a tree too deep, 413. */
  async #measure<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    // A closed store may have left TIDY_MARKER: nothing may change it after.
    if (this.#closing) throw new Error('the snapshot store is closed');
    const running = this.#measured(operation, fn);
    this.#running.add(running);
    try {
      return await running;
    } catch (err) {
      // Whatever failed may have left a pack, an entries file or a clone behind: the next open sweeps.
      this.#spoil();
      throw err;
    } finally {
      this.#running.delete(running);
    }
  }

  /** The store may hold something to sweep from now on. */
  #spoil(): void {
    this.#untidy = true;
    this.#failedSinceOpen = true;
  }

  async #measured<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    const end = this.options.metrics?.duration.startTimer({ operation });
    try {
      const value = await fn();
      this.options.metrics?.operations.inc({ operation, outcome: 'ok' });
      return value;
    } catch (err) {
      const full = (err instanceof JobError && err.diskFull) || ['ENOSPC', 'EDQUOT'].includes((err as NodeJS.ErrnoException).code ?? '');
      this.options.metrics?.operations.inc({ operation, outcome: full ? 'disk-full' : 'error' });
      if (full) {
        if (operation === 'create') void this.sweep().catch(() => undefined);
        const outcome =
          operation === 'delete' ? 'the snapshot is deleted; its space is freed by the next delete or start once the disk has room' : 'nothing was kept';
        throw new ApiError('ABX_ERR_DISK_LOW', `the disk filled during the snapshot ${operation}: ${outcome} (${(err as Error).message})`);
      }
      if ([TOO_DEEP, TOO_SPARSE, TOO_MANY_ENTRIES].includes((err as NodeJS.ErrnoException).code ?? ''))
        throw new ApiError('ABX_ERR_FILE_TOO_LARGE', `${(err as Error).message}; nothing was kept`);
      if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY')
        throw new ApiError(
          'ABX_ERR_FILE_TOO_LARGE',
          `the workspace is too large to snapshot: its capture needed more than a capture thread's ${this.#captureHeapMiB} MiB of memory (its files' entries are held while it is walked); nothing was kept`,
        );
      throw err;
    } finally {
      end?.();
    }
  }
}

/**
 * Left in `tmp/` by a close with nothing to sweep, and removed (with the rest of `tmp/`) by the
 * next open, which then skips the sweep: with large snapshots a sweep reads every entries file
 * (seven of 54,000 files: 2 s), and the box's first snapshot after a start would wait for it.
 * Absent after a kill, so a store a kill left is swept. In `tmp/`, which backups leave out.
 */
export const TIDY_MARKER = 'closed-tidy';

const tidyMarker = (dir: string) => path.join(storeLayout(dir).tmp, TIDY_MARKER);

async function writeTidyMarker(dir: string): Promise<void> {
  const handle = await open(tidyMarker(dir), 'w', 0o600);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await syncDirectory(storeLayout(dir).tmp);
}
