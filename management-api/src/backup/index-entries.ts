// The file list of a backup's index, checked entry by entry before any file is read: an edited index
// must not make a restore write anywhere a backup never writes (the secrets directory above all, where
// a planted api-key or identity.key would be the box's), nor crash a check with a bare TypeError.
import { EVENT_LOG_DIR, FILE_TREES, MANIFEST_COPY, SECRETS_FILE, SQLITE_STORES } from './backup-format.js';
import { KEPT_MODE } from './copy-files.js';

/** The single files a backup holds, by their path in it. */
const HELD_FILES: ReadonlySet<string> = new Set([SECRETS_FILE, MANIFEST_COPY, ...SQLITE_STORES.map((s) => `state/${s}`)]);
/** The trees a backup holds whole, by the prefix of their files' paths. */
const HELD_TREES = [EVENT_LOG_DIR, ...FILE_TREES].map((tree) => `state/${tree}/`);

/** Whether `rel` is a place `agentbox backup` writes: what restore may put under the new root. */
export const isHeldPath = (rel: string): boolean => HELD_FILES.has(rel) || HELD_TREES.some((tree) => rel.startsWith(tree));

/**
 * Why the index's `files` cannot be checked as a backup's, each naming the entry; empty when every
 * entry is a plain relative path to a place a backup writes, listed once, with a size, a SHA-256 and
 * permission bits.
 */
export function entryProblems(files: readonly unknown[], indexFile: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of files.entries()) {
    const entry = raw as { path?: unknown; bytes?: unknown; sha256?: unknown; mode?: unknown } | null;
    if (typeof entry !== 'object' || entry === null || typeof entry.path !== 'string') {
      problems.push(`${indexFile}: files[${i}] has no path`);
      continue;
    }
    const name = `${indexFile} names ${JSON.stringify(entry.path)}`;
    const parts = entry.path.split('/');
    if (entry.path.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..')) problems.push(`${name}, not a plain relative path in the backup`);
    else if (!isHeldPath(entry.path))
      problems.push(`${name}, which a backup never holds (a restore writes only the stores, the event log, pods, snapshots and the manifest)`);
    else if (seen.has(entry.path)) problems.push(`${name} twice`);
    else if (!Number.isSafeInteger(entry.bytes) || (entry.bytes as number) < 0) problems.push(`${name} with a size that is no number of bytes`);
    else if (typeof entry.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.sha256)) problems.push(`${name} with a SHA-256 that is not 64 hex digits`);
    else if (!Number.isInteger(entry.mode) || ((entry.mode as number) & ~KEPT_MODE) !== 0)
      problems.push(`${indexFile} gives ${entry.path} mode 0${Number(entry.mode).toString(8)}: a backup keeps permission bits (0777) only`);
    seen.add(entry.path);
  }
  return problems;
}
