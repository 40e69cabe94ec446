// Limits of the files API: per file, per tar upload, per listing; the agent's disk budget lowers them further.
/** Largest file a PUT or a tar entry may write. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Most entries (headers, long-name records aside) one tar upload may hold. */
export const MAX_TAR_ENTRIES = 100_000;
/** Most file bytes one tar upload may write. */
export const MAX_TAR_BYTES = 1024 * 1024 * 1024;

/** What one upload may write. */
export interface UploadLimits {
  fileBytes: number;
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
  return {
    fileBytes: Math.min(MAX_FILE_BYTES, left ?? MAX_FILE_BYTES),
    entries: MAX_TAR_ENTRIES,
    totalBytes: budgeted ? Math.max(0, left) : MAX_TAR_BYTES,
    totalName: budgeted ? "what the agent's disk budget (sandbox.limits.disk) has left" : 'the tar upload limit',
  };
}
