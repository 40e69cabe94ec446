// Warm forks: whole copies of a snapshot built ahead, in the workspace's private `.abx-warm`, which a fork then takes by one rename instead of copying every byte while its caller waits.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, realpath, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import { MAX_WARM_FORKS } from '../grammar/warm-forks-count.js';
import { at, atOwn, DIR_FLAGS } from '../workspace-files/dir-fd.js';
import { removeTree } from '../workspace-files/file-delete.js';
import type { SnapshotMetrics } from './snapshot-metrics.js';
import type { Owner } from './snapshot-protocol.js';
import type { SnapshotStore } from './snapshot-store.js';
import { WARM_WANTED_FILE, type WarmWanted } from './warm-wanted.js';

/**
 * Why: off btrfs, a fork copies every byte of its snapshot while the spawn waits (1 GiB: seconds;
 * ten at once: tens of seconds on this kind of disk), and no filesystem there shares bytes
 * between two directories. What can be moved is *when* the copy is paid: an operator who knows
 * forks of a snapshot will come asks for N copies ahead (`PUT /v1/snapshots/{sid}/warm`), the box
 * builds them one at a time in the background, and a fork takes one by renaming it into place
 * (same filesystem: the workspace's), then a new one is built to keep N ready.
 */

/** The directory of the copies, in the workspace root (no agent name holds a dot; agents are denied the root). */
export const WARM_DIR = '.abx-warm';

/** What a snapshot's pool holds and does, as the API shows it. */
export interface WarmStatus {
  /** Copies asked for. */
  wanted: number;
  /** Copies built and waiting for a fork. */
  ready: number;
  /** A copy of it is being built now. */
  building: boolean;
  /** Why the last build failed: no more are tried until the copies are asked for again. */
  error?: string;
}

/** A copy taken for one fork: rename `path` into place (then `placed`), or `discard` it. */
export interface WarmCopy {
  /** The copy, as a path through the pool's descriptor (/proc/self/fd/N/<name>). */
  path: string;
  /** Whose it was built as: spare ids lent to it (WarmOwners), or undefined (the box's). */
  owner: Owner | undefined;
  /** In place: the ids lent to it may be lent again, unless the fork's name adopted them. */
  placed(): void;
  discard(): Promise<void>;
}

/**
 * Who copies are built for on a box whose agents have uids of their own: ids no name has yet, lent
 * to one copy each, so that a fork of a new name adopts them with its copy, which then changes
 * hands by its rename alone (a chown of each of a large tree's entries took seconds for ten forks).
 */
export interface WarmOwners {
  lend(): Promise<Owner>;
  giveBack(ids: Owner): void;
}

/** A copy built and waiting: its name in the pool's directory, and whose it is. */
interface ReadyCopy {
  name: string;
  owner: Owner | undefined;
}

interface Pool {
  wanted: number;
  ready: ReadyCopy[];
  error: string | undefined;
}

export interface WarmForksOptions {
  store: SnapshotStore;
  workspaceDir: string;
  /** Where builds are said (pino's, or fastify's). */
  logger: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** What the workspace's volume may still take above the disk guard's floor (DiskGuard.headroom): a build that would not fit is refused. */
  room: () => Promise<number>;
  /** `agentbox_snapshot_warm_forks{state}`: copies wanted and ready, over every snapshot. */
  metrics?: Pick<SnapshotMetrics, 'warmForks'>;
  /** Where the counts wanted are kept for the next start (resume()); none: they last as long as this box. */
  wanted?: WarmWanted;
  /** Spare ids to build each copy as (a root box); none: copies are the box's. */
  owners?: WarmOwners;
}

export class WarmForks {
  readonly #pools = new Map<string, Pool>();
  /** Removals of copies no longer wanted, awaited by close(). */
  readonly #removals = new Set<Promise<void>>();
  /** What a previous run left in the workspace, removed at start. */
  readonly #cleared: Promise<void>;
  /** The pool's directory, made on the first want() once #cleared: a box that never asks for copies adds nothing to its workspace. */
  #opened: Promise<FileHandle> | undefined;
  #building: { sid: string; done: Promise<void> } | undefined;
  #closed = false;

  constructor(private readonly options: WarmForksOptions) {
    this.#cleared = this.#clearLeftOver();
    // Seen by the first want() or close(); never an unhandled rejection meanwhile.
    this.#cleared.catch(() => {});
  }

  /** Keep `count` copies of snapshot `sid` ready (0 removes its copies). The snapshot must exist. */
  async want(sid: string, count: number): Promise<WarmStatus> {
    if (this.#closed) throw new ApiError('ABX_ERR_CONFLICT', 'the box is stopping: no warm fork is built');
    this.options.store.get(sid);
    if (count === 0) {
      // Nothing to build: the directory is made only for copies.
      this.forget(sid);
      return this.status(sid);
    }
    this.#opened ??= this.#cleared
      .then(() => this.#make())
      .catch((err: unknown) => {
        // Tried again by the next want().
        this.#opened = undefined;
        throw err;
      });
    await this.#opened;
    const pool = this.#pools.get(sid) ?? { wanted: 0, ready: [], error: undefined };
    pool.wanted = count;
    pool.error = undefined;
    this.#pools.set(sid, pool);
    for (const extra of pool.ready.splice(count)) this.#remove(extra);
    this.#fill();
    this.#counted();
    this.#saveWanted();
    return this.status(sid);
  }

  /**
   * Ask again for the copies the last run wanted (a start): every snapshot still in the store gets
   * its count back, and its copies are built as if just asked for. Never throws: what cannot be
   * resumed is logged.
   */
  async resume(): Promise<void> {
    const saved = this.options.wanted;
    if (!saved) return;
    const { wanted, problem } = await saved.read(MAX_WARM_FORKS);
    if (problem)
      this.options.logger.warn(
        { event: 'SnapshotWarmNotResumed', file: WARM_WANTED_FILE, problem },
        `the warm forks wanted before this start are not known (${WARM_WANTED_FILE}: ${problem}); ask for them again (agentbox snapshot warm SID N), which rewrites the file`,
      );
    const resumed: string[] = [];
    for (const [sid, count] of wanted) {
      try {
        await this.want(sid, count);
        resumed.push(sid);
      } catch (err) {
        // Gone since (a store put back from a backup): dropped from the file below, nothing to say.
        if (err instanceof ApiError && err.code === 'ABX_ERR_NOT_FOUND') continue;
        this.options.logger.warn(
          { event: 'SnapshotWarmNotResumed', snapshot: sid, err: (err as Error).message },
          `warm forks of snapshot ${sid} not asked for again`,
        );
      }
    }
    if (wanted.size > 0)
      this.options.logger.info(
        { event: 'SnapshotWarmResumed', snapshots: resumed, copies: resumed.reduce((n, sid) => n + (wanted.get(sid) ?? 0), 0) },
        `warm forks of ${resumed.length} snapshots asked for again, as before this start`,
      );
    if (resumed.length !== wanted.size) this.#saveWanted();
  }

  /** The counts wanted, saved for the next start; not while stopping (close() forgets every pool, which the next start must not). */
  #saveWanted(): void {
    const saved = this.options.wanted;
    if (!saved || this.#closed) return;
    const counts = new Map([...this.#pools].map(([sid, p]) => [sid, p.wanted]));
    saved
      .save(counts)
      .catch((err: unknown) =>
        this.options.logger.warn(
          { event: 'SnapshotWarmNotSaved', file: WARM_WANTED_FILE, err: (err as Error).message },
          `the warm forks wanted could not be saved (${WARM_WANTED_FILE}): they are built for this run, and not asked for again at the next start`,
        ),
      );
  }

  /** The gauges, after any change of what is wanted or ready. */
  #counted(): void {
    const gauge = this.options.metrics?.warmForks;
    if (!gauge) return;
    let wanted = 0;
    let ready = 0;
    for (const p of this.#pools.values()) {
      wanted += p.wanted;
      ready += p.ready.length;
    }
    gauge.set({ state: 'wanted' }, wanted);
    gauge.set({ state: 'ready' }, ready);
  }

  status(sid: string): WarmStatus {
    const pool = this.#pools.get(sid);
    return {
      wanted: pool?.wanted ?? 0,
      ready: pool?.ready.length ?? 0,
      building: this.#building?.sid === sid,
      ...(pool?.error !== undefined ? { error: pool.error } : {}),
    };
  }

  /** A ready copy of `sid` for a fork, if there is one; a new one is then built to replace it. */
  async take(sid: string): Promise<WarmCopy | undefined> {
    const copy = this.#pools.get(sid)?.ready.shift();
    if (copy === undefined) return undefined;
    const dir = await this.#dir();
    this.#fill();
    this.#counted();
    return { path: atOwn(dir, copy.name), owner: copy.owner, placed: () => this.#giveBack(copy.owner), discard: () => this.#removeNow(copy) };
  }

  /** Drop `sid`'s pool (the snapshot is deleted, or no copy is wanted): its ready copies are removed, and one being built is once done. */
  forget(sid: string): void {
    const pool = this.#pools.get(sid);
    if (!pool) return;
    this.#pools.delete(sid);
    for (const copy of pool.ready) this.#remove(copy);
    this.#counted();
    this.#saveWanted();
  }

  /** Stop building, and remove every copy: a copy is only worth its rename while this box runs. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#building?.done;
    for (const sid of [...this.#pools.keys()]) this.forget(sid);
    await Promise.all(this.#removals);
    const dir = await this.#opened?.catch(() => undefined);
    if (dir) {
      await dir.close();
      await this.#removeDir();
    } else await this.#cleared.catch(() => undefined);
  }

  /** Build the next copy some pool lacks, one at a time across all of them: forks built meanwhile keep the disk's other share. */
  #fill(): void {
    if (this.#building || this.#closed) return;
    const next = [...this.#pools].find(([, p]) => p.error === undefined && p.ready.length < p.wanted);
    if (!next) return;
    const [sid, pool] = next;
    const done = this.#buildOne(sid, pool).finally(() => {
      this.#building = undefined;
      this.#fill();
    });
    this.#building = { sid, done };
  }

  async #buildOne(sid: string, pool: Pool): Promise<void> {
    const dir = await this.#dir();
    const copy: ReadyCopy = { name: `${sid}.${randomBytes(6).toString('hex')}`, owner: undefined };
    const started = Date.now();
    try {
      // Spare ids on a root box, which a fork of a new name adopts; else the box's, and a fork gives the copy to its agent's uid as it takes it.
      copy.owner = await this.options.owners?.lend();
      await this.options.store.materialize(sid, atOwn(dir, copy.name), copy.owner, 'warm', this.options.room);
    } catch (err) {
      await this.#removeNow(copy).catch(() => {});
      const message = err instanceof ApiError ? `${err.code}: ${err.message}` : (err as Error).message;
      if (this.#pools.get(sid) === pool) pool.error = message;
      this.options.logger.warn(
        { event: 'SnapshotWarmFailed', snapshot: sid, err: message },
        `a warm fork of snapshot ${sid} could not be built; no more are tried until they are asked for again`,
      );
      return;
    }
    // Deleted, or no longer wanted, while it was built: not kept.
    if (this.#pools.get(sid) !== pool || this.#closed || pool.ready.length >= pool.wanted) {
      this.#remove(copy);
      return;
    }
    pool.ready.push(copy);
    this.#counted();
    this.options.logger.info(
      { event: 'SnapshotWarmReady', snapshot: sid, ready: pool.ready.length, wanted: pool.wanted, durationMs: Date.now() - started },
      `a warm fork of snapshot ${sid} is ready (${pool.ready.length} of ${pool.wanted})`,
    );
  }

  #remove(copy: ReadyCopy): void {
    const removal = this.#removeNow(copy)
      .catch((err: unknown) =>
        this.options.logger.warn(
          { event: 'SnapshotWarmLeftOver', dir: `${WARM_DIR}/${copy.name}`, err: (err as Error).message },
          'a warm fork could not be removed; the next start removes it',
        ),
      )
      .finally(() => this.#removals.delete(removal));
    this.#removals.add(removal);
  }

  /** Remove a copy, then give its ids back (only once nothing of it is left: they may be lent again). */
  async #removeNow(copy: ReadyCopy): Promise<void> {
    const dir = await this.#dir();
    await removeTree(dir, copy.name, `${WARM_DIR}/${copy.name}`, { unseal: true }).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    });
    this.#giveBack(copy.owner);
  }

  #giveBack(owner: Owner | undefined): void {
    if (owner) this.options.owners?.giveBack(owner);
  }

  /** The pool's directory: only ever asked for once want() made it (a copy exists only then). */
  #dir(): Promise<FileHandle> {
    if (!this.#opened) throw new Error('warm forks: no copy was asked for');
    return this.#opened;
  }

  /** `work` on the workspace's root, opened by its real path. */
  async #inRoot<T>(work: (root: FileHandle) => Promise<T>): Promise<T> {
    const root = await open(await realpath(this.options.workspaceDir), DIR_FLAGS);
    try {
      return await work(root);
    } finally {
      await root.close();
    }
  }

  /** Copies a previous run left are not trusted to be whole, and go; so does anything else by that name (a link an agent working in the workspace itself made, never followed). */
  #clearLeftOver(): Promise<void> {
    return this.#inRoot(async (root) => {
      const there = await lstat(at(root, WARM_DIR)).catch(() => undefined);
      if (there?.isDirectory()) await removeTree(root, WARM_DIR, WARM_DIR, { unseal: true });
      else if (there) await unlink(at(root, WARM_DIR));
    });
  }

  /** The pool's directory made, private to the box (0700); anything made by that name since the start goes first. */
  async #make(): Promise<FileHandle> {
    await this.#clearLeftOver();
    return this.#inRoot(async (root) => {
      await mkdir(at(root, WARM_DIR), { mode: 0o700 });
      // O_NOFOLLOW: a link someone put there since is refused, never followed.
      return open(at(root, WARM_DIR), DIR_FLAGS);
    });
  }

  /** The emptied directory removed at close; one still holding a copy that could not be removed stays, for the next start. */
  async #removeDir(): Promise<void> {
    await this.#inRoot((root) => rmdir(at(root, WARM_DIR))).catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY') throw err;
    });
  }
}
