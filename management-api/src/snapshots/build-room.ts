// What a copying build of a snapshot (a fork or a restore) writes to the workspace, and room for it on the volume beside the builds already under way, checked before a byte is written.
import { ApiError } from '../errors.js';
import { BLOCK_BYTES, type SnapshotSummary } from './snapshot-manifest.js';

/**
 * Bytes a copying build of `s` allocates: as its capture counted them, blocks as the agent's disk
 * walk counts them (a workspace of small files within its budget forks within the same budget;
 * a block per entry on top of the bytes made one of 3 KB files count as 7 KB a file), or, for a
 * snapshot made before that was recorded, at most its files' bytes but the holes it leaves
 * (snapshot-manifest.ts, ZERO_CHUNK_SHA256) and a block for each entry. Every hard link of a file
 * comes back a file of its own, so this can be far more than the agent's directory took: a file
 * linked a thousand times is stored once and built a thousand times.
 */
export function buildBytes(s: SnapshotSummary): number {
  const { bytes, holeBytes = 0, files, dirs, symlinks, buildBytes: counted } = s.stats;
  return counted ?? bytes - holeBytes + BLOCK_BYTES * (files + dirs + symlinks + 1);
}

const mib = (n: number) => `${(n / 1024 ** 2).toFixed(1)} MiB`;

/** A build under way: what it will write in all, and what it has written so far (a BigInt64 its threads add to). */
interface Hold {
  need: number;
  written: BigInt64Array;
}

/**
 * The bytes the builds under way still hold against the workspace volume. A build is admitted
 * only while what it writes and what the others have still to write fit what the volume may
 * still take above resources.min_free_disk (`room`, a fresh statfs): otherwise a fork of a
 * snapshot larger than the disk, or ten at once, would fill the volume the box's own writes
 * need, and fail half-made. A build's hold shrinks as it writes (the free space shrinks with it),
 * so what it has written is not counted twice.
 */
export class BuildRoom {
  readonly #holds = new Set<Hold>();

  /** Bytes the builds under way have still to write. */
  get held(): number {
    let held = 0;
    for (const h of this.#holds) held += Math.max(0, h.need - Number(Atomics.load(h.written, 0)));
    return held;
  }

  /** Run `build` once there is room for it; it is given the counter its threads add their written bytes to (MaterializeJob.written). */
  async run<T>(s: SnapshotSummary, room: () => Promise<number>, build: (written: SharedArrayBuffer) => Promise<T>): Promise<T> {
    const need = buildBytes(s);
    const free = await room();
    const held = this.held;
    // Checked and held in one turn of the event loop: builds admitted at once see each other's holds.
    if (need + held > free)
      throw new ApiError(
        'ABX_ERR_DISK_LOW',
        `snapshot ${s.id} would write about ${mib(need)} to the workspace (its files' ${s.stats.bytes} bytes, holes left out, hard links each a file), and the workspace volume has ${mib(free)} above resources.min_free_disk${held > 0 ? `, ${mib(held)} of it still to be written by builds under way` : ''}: nothing was written; free space there and retry`,
      );
    const counter = new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT);
    const hold = { need, written: new BigInt64Array(counter) };
    this.#holds.add(hold);
    try {
      return await build(counter);
    } finally {
      this.#holds.delete(hold);
    }
  }
}
