// Limits of the files API: per file, per tar upload, per listing, tar downloads at once; the agent's disk budget lowers them further.
import { ApiError } from '../errors.js';

/** Largest file a PUT or a tar entry may write. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Most entries (headers, long-name records aside) one tar upload may hold. */
export const MAX_TAR_ENTRIES = 100_000;
/** Most file bytes one tar upload may write. */
export const MAX_TAR_BYTES = 1024 * 1024 * 1024;

/** What one upload may write. */
export interface UploadLimits {
  fileBytes: number;
  /** Names the limit `fileBytes` comes from, for the error. */
  fileName: string;
  entries: number;
  totalBytes: number;
  /** Names the limit `totalBytes` comes from, for the error. */
  totalName: string;
}

/**
 * The limits of an upload for an agent: `left` is what its disk budget has left (undefined
 * without a budget), which caps both one file and the total.
 */
export function uploadLimits(left: number | undefined): UploadLimits {
  const budgeted = left !== undefined && left < MAX_TAR_BYTES;
  const budgetName = "what the agent's disk budget (sandbox.limits.disk) has left";
  return {
    fileBytes: Math.min(MAX_FILE_BYTES, left ?? MAX_FILE_BYTES),
    fileName: left !== undefined && left < MAX_FILE_BYTES ? budgetName : 'the per-file limit',
    entries: MAX_TAR_ENTRIES,
    totalBytes: budgeted ? Math.max(0, left) : MAX_TAR_BYTES,
    totalName: budgeted ? budgetName : 'the tar upload limit',
  };
}

/**
 * Tar downloads of one agent's workspace that may be going at once. Every download of the box is
 * packed in one shared worker (tar-pack.ts): with no bound, one agent's token could hold enough
 * downloads open to take the box's share and keep every other agent's out.
 */
export const MAX_TAR_DOWNLOADS_PER_AGENT = 4;

/**
 * Tar downloads of the whole box at once. A pack holds at most a few MiB of the worker's heap
 * (listings are streamed, batches windowed) and two descriptors per directory level
 * (tree-depth.ts); this bound keeps the sum of both small whatever several agents do together.
 */
export const MAX_TAR_DOWNLOADS = 16;

/** The tar downloads going, per agent and in all. */
export class TarDownloads {
  readonly #going = new Map<string, number>();
  #total = 0;

  constructor(
    private readonly perAgent = MAX_TAR_DOWNLOADS_PER_AGENT,
    private readonly inAll = MAX_TAR_DOWNLOADS,
  ) {}

  /** One more download of `agent`'s workspace, or 429 when it (or the box) has its most going; call the answer once it has ended. */
  admit(agent: string, shown = `agent ${agent}`): () => void {
    const going = this.#going.get(agent) ?? 0;
    if (going >= this.perAgent)
      throw new ApiError('ABX_ERR_RATE_LIMITED', `${shown} has ${going} tar downloads going, the most at once: retry once one has ended`, {
        'retry-after': '1',
      });
    if (this.#total >= this.inAll)
      throw new ApiError('ABX_ERR_RATE_LIMITED', `the box has ${this.#total} tar downloads going, the most at once: retry once one has ended`, {
        'retry-after': '1',
      });
    this.#going.set(agent, going + 1);
    this.#total++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#total--;
      const left = (this.#going.get(agent) ?? 1) - 1;
      if (left > 0) this.#going.set(agent, left);
      else this.#going.delete(agent);
    };
  }
}
