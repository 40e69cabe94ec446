// What a walk of a workspace reads that no disk budget pays for: the holes of sparse files (per snapshot capture and per tar download), and a tar download's files packed again under another hard link.

/** The error code of a walk whose files hold more holes than it may read through. */
export const TOO_SPARSE = 'ETOOSPARSE';

/** The holes a walk may read through when its agent has no disk budget: the manifest's default budget (`sandbox.limits.disk`, 10g). */
export const DEFAULT_MAX_HOLE_BYTES = 10 * 1024 ** 3;

/**
 * The holes one snapshot capture or tar download may read through. A sparse file takes no disk
 * (an agent's budget counts allocated blocks), yet a read goes through its every byte: 4 GiB of
 * holes took 36 s to read (first read, on this project's test machine), so an agent's thousands
 * of sparse files (`truncate -s 1G`, each inside the per-file limit) would hold a capture thread,
 * and every snapshot waiting for one, for hours (or the tar thread every download shares). With
 * this bound the holes a walk reads are at most its agent's disk budget. Node has no lseek, so
 * holes cannot be skipped (SEEK_DATA) instead.
 *
 * What is charged is what a read goes through beyond the blocks the file had allocated when it
 * was opened: a file the agent extends while it is read is charged for what it grew by. An
 * estimate that errs one way only: a file whose blocks the filesystem counts compressed (ZFS)
 * looks sparser than it is, never the other way.
 */
export class HoleAllowance {
  #read = 0;

  constructor(
    readonly maxBytes: number,
    /** Who reads, for the message: "a snapshot", "a tar download". */
    private readonly reader: string,
  ) {}

  /**
   * Charge a read of `bytes` at `position` of the file at `rel`, which had `allocated` bytes of
   * blocks when opened; the TOO_SPARSE error once the walk's holes exceed the allowance.
   */
  charge(rel: string, allocated: number, position: number, bytes: number): void {
    const beyond = Math.min(bytes, position + bytes - allocated);
    if (beyond <= 0) return;
    this.#read += beyond;
    if (this.#read <= this.maxBytes) return;
    throw tooSparse(
      `the workspace's sparse files hold more than ${this.maxBytes} bytes of holes (the agent's disk budget), which ${this.reader} would read as zeros (stopped reading "${shortened(rel)}"); delete or shrink the sparse files, or give the agent a larger sandbox.limits.disk`,
    );
  }

  /**
   * Charge `bytes` of a file packed again under `rel`, another of its hard links: a tar download
   * packs each link as a file of its own (an upload refuses hard links), while the agent's disk
   * budget counts the file once, so ten thousand links to one file would have the tar thread read
   * it ten thousand times. What such repeats read counts with the holes; the TOO_SPARSE error
   * once the two exceed the allowance.
   */
  chargeRepeat(rel: string, bytes: number): void {
    this.#read += bytes;
    if (this.#read <= this.maxBytes) return;
    throw tooSparse(
      `the workspace's hard links would have ${this.reader} read more than ${this.maxBytes} bytes (the agent's disk budget) beyond what its files take, each link packed as a file of its own (stopped at "${shortened(rel)}"); download the directories without the extra links, or give the agent a larger sandbox.limits.disk`,
    );
  }
}

/** The TOO_SPARSE error with `message`. */
function tooSparse(message: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(message);
  err.code = TOO_SPARSE;
  return err;
}

/** A path fit for a message: a hostile one may be kilobytes long. */
const shortened = (rel: string): string => (rel.length > 120 ? `${rel.slice(0, 120)}…` : rel);
