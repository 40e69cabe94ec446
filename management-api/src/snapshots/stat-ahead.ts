// Stat-ahead: while a second snapshot walks an agent's workspace from the start, a helper thread looks at the files of its previous snapshot from the end, so the walk's one lstat per file is shared by two cores.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { KeptFile, KeptSnapshot } from './capture-cache.js';

/**
 * Why: a second snapshot of a large tree is mostly one lstat per file on the capture thread (about
 * 5 µs each: 54,000 files took 172–234 ms on one thread, 109–161 ms split over two). So a helper
 * thread lstats the previous snapshot's files from the far end of the walk's order while the walk
 * goes from the near end; each file's slot is claimed by whichever gets to it first, so the two meet
 * wherever their speeds put them, with no share decided in advance.
 *
 * What a helper's answer may decide is what the walk's own lstat by path decides: that the file is
 * the very inode the previous snapshot read, with the same size, mtime and ctime (its content is
 * what that snapshot read, as ctime cannot be set back). The helper looked earlier than the walk
 * would have, after the capture began, so the file is kept as of that look. The walk uses an answer
 * only in a directory whose stamp is unchanged since the previous snapshot: there no name was linked,
 * unlinked or renamed since, so the name still leads to the inode the helper judged. In a changed
 * directory a rename between the helper's look and the listing could pair a name with another file's
 * inode, so there the walk looks itself.
 */

/** Below this many files with a stamp, the walk does every lstat itself: handing them over would save less than it costs. */
export const AHEAD_MIN_FILES = 5_000;
/**
 * Above this many, too: a plan holds every path once more (about 100 bytes a file) in the capture
 * thread's heap, which a tree of a million files already mostly fills (capture-workers.ts).
 */
export const AHEAD_MAX_FILES = 500_000;

/** A slot's state: not looked at yet, the helper found the same stamp, or another answer, or the walk claimed it first. */
export const PENDING = 0;
export const SAME = 1;
export const DIFFERS = 2;
export const CLAIMED = 3;

/** Per slot: the stamp the helper compares (statKey's numbers: device, inode, size, mtimeMs, ctimeMs)… */
export const STAMP_FIELDS = 5;
/** …and what it found for a file with that stamp: mode, uid, gid (for the clone check). */
export const META_FIELDS = 3;

/** What the helper thread is sent for one capture: `state` has a slot per path and one more, set when the capture has ended. */
export interface AheadJob {
  /** The files' absolute paths, joined by NUL (one string is cloned far faster than an array of them). */
  paths: string;
  stamps: Float64Array;
  meta: Int32Array;
  state: Int32Array;
}

/** What the helper found for a file whose stamp is the previous snapshot's. */
export interface LookedAt {
  mode: number;
  uid: number;
  gid: number;
}

/** What the helper thread is sent: a job to keep (the next capture's, replacing any kept), or the word to run the kept one. */
export type AheadMessage = { id: number; job: AheadJob } | { go: number };

/** One capture's share of work with the helper: each file of the previous snapshot in its slot. */
export class AheadPlan {
  constructor(
    readonly id: number,
    readonly snapshot: KeptSnapshot,
    private readonly slots: Map<KeptFile, number>,
    readonly job: AheadJob,
  ) {}

  /**
   * Claim `file`'s slot for the walk: what the helper found when it got there first (the same
   * stamp, with its mode and owner, or 'differs'), else undefined, and the helper stops there.
   */
  take(file: KeptFile): LookedAt | 'differs' | undefined {
    const slot = this.slots.get(file);
    if (slot === undefined) return undefined;
    const was = Atomics.compareExchange(this.job.state, slot, PENDING, CLAIMED);
    if (was === DIFFERS) return 'differs';
    if (was !== SAME) return undefined;
    const at = slot * META_FIELDS;
    const { meta } = this.job;
    return { mode: meta[at]!, uid: meta[at + 1]!, gid: meta[at + 2]! };
  }

  /** The capture has ended (however): the helper stops at its next file. */
  end(): void {
    Atomics.store(this.job.state, this.job.state.length - 1, 1);
  }
}

/**
 * A capture thread's helper: one thread, started once a snapshot large enough was kept (so its
 * start-up is paid while the capture thread is idle), unref'd, and ended with the capture thread.
 * Each kept snapshot's plan is made then too, and sent ahead, so a capture starts with one
 * message. None on a single core, where the two would only take turns.
 */
export class StatAhead {
  #worker: Worker | undefined;
  #prepared: AheadPlan | undefined;
  #nextId = 1;

  constructor(
    private readonly cores = availableParallelism(),
    /** AHEAD_MIN_FILES; a test lowers it to see the helper at work on a small tree. */
    private readonly minFiles = AHEAD_MIN_FILES,
  ) {}

  /** After a capture kept `snapshot`: its plan made and handed to the helper, ready for the agent's next capture. */
  prepare(snapshot: KeptSnapshot): void {
    this.#prepared = undefined;
    try {
      this.#prepared = this.#plan(snapshot);
      if (this.#prepared) this.#send({ id: this.#prepared.id, job: this.#prepared.job });
    } catch {
      // The helper is a saving, never a condition: without a plan the next capture's walk looks itself.
      this.#prepared = undefined;
    }
  }

  /** The plan for a capture whose previous snapshot is `previous`, started: the one prepared for it, else one made now; undefined for a small tree or one core. */
  start(previous: KeptSnapshot): AheadPlan | undefined {
    const prepared = this.#prepared;
    this.#prepared = undefined;
    try {
      let plan = prepared?.snapshot === previous ? prepared : undefined;
      if (!plan) {
        plan = this.#plan(previous);
        if (!plan) return undefined;
        this.#send({ id: plan.id, job: plan.job });
      }
      this.#send({ go: plan.id });
      return plan;
    } catch {
      // As in prepare: a capture never fails for want of its helper.
      return undefined;
    }
  }

  /** End the helper thread (a capture thread's ends with it). */
  async close(): Promise<void> {
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  #send(message: AheadMessage): void {
    this.#helper().postMessage(message);
  }

  #plan(snapshot: KeptSnapshot): AheadPlan | undefined {
    if (this.cores < 2) return undefined;
    if (snapshot.files < this.minFiles || snapshot.files > AHEAD_MAX_FILES) return undefined;
    const files = inWalkOrder(snapshot);
    if (files.length < this.minFiles) return undefined;
    const slots = new Map<KeptFile, number>();
    const stamps = new Float64Array(new SharedArrayBuffer(files.length * STAMP_FIELDS * 8));
    const paths: string[] = [];
    for (const [slot, { file, abs }] of files.entries()) {
      slots.set(file, slot);
      stamps.set(file.stamp!, slot * STAMP_FIELDS);
      paths.push(abs);
    }
    const job: AheadJob = {
      paths: paths.join('\0'),
      stamps,
      meta: new Int32Array(new SharedArrayBuffer(files.length * META_FIELDS * 4)),
      state: new Int32Array(new SharedArrayBuffer((files.length + 1) * 4)),
    };
    return new AheadPlan(this.#nextId++, snapshot, slots, job);
  }

  #helper(): Worker {
    if (!this.#worker) {
      // Beside this module: .js when built (and bundled), .ts when the tests run the sources.
      const worker = new Worker(new URL(`./stat-ahead-worker${path.extname(import.meta.url)}`, import.meta.url));
      worker.unref();
      // A helper that failed is let go: slots it never answered are the walk's, and the next capture starts another.
      worker.on('error', () => {
        if (this.#worker === worker) this.#worker = undefined;
      });
      this.#worker = worker;
    }
    return this.#worker;
  }
}

/**
 * The previous snapshot's files with a stamp, in directories whose listing the walk will reuse
 * while unchanged (a stamp kept), in the order the walk meets them: each directory's names in
 * order, a subdirectory's walked where its name is.
 */
function inWalkOrder(snapshot: KeptSnapshot): Array<{ file: KeptFile; abs: string }> {
  const out: Array<{ file: KeptFile; abs: string }> = [];
  const visit = (rel: string) => {
    const dir = snapshot.dirs.get(rel);
    if (!dir) return;
    for (const n of dir.names) {
      if (n.file) {
        n.file.stamp ??= parseKey(n.file.entry.key);
        if (dir.stamp !== '' && n.file.stamp) out.push({ file: n.file, abs: n.abs });
      } else if (snapshot.dirs.has(n.rel)) visit(n.rel);
    }
  };
  visit('');
  return out;
}

/** A key's numbers, in statKey's order; null for an empty key (read the file again). */
export const parseKey = (key: string): number[] | null => (key === '' ? null : key.split(':').map(Number));
