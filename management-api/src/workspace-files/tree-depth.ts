// How deep a workspace tree the box walks (tar downloads, snapshots) and lets be made through its API (uploads): one limit, so what goes in can come out.

/**
 * Directory levels below the walked directory. A walk holds one descriptor per level it is in
 * (two for a tar download, which also streams the level's listing), and every walk shares the
 * API process's descriptor table: without a bound, one agent's chain of a few thousand nested
 * directories, walked by a download its reader holds unread, could take every descriptor the box
 * has (EMFILE for every request). Real trees nest a few dozen levels at most.
 */
export const MAX_TREE_DEPTH = 128;

/** The error code a walk fails with when it meets a directory deeper than MAX_TREE_DEPTH. */
export const TOO_DEEP = 'ETOODEEP';

/** Levels of a relative path ("a" is 1, "a/b" 2). */
export function depthOf(rel: string): number {
  let depth = 1;
  for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) depth++;
  return depth;
}

/** The error of a walk that found directory `rel` (relative to where it started) too deep; `what` is what could not be done ("to pack"). */
export function treeTooDeep(rel: string, what: string): NodeJS.ErrnoException {
  const shown = rel.length > 120 ? `${rel.slice(0, 120)}…` : rel;
  const err: NodeJS.ErrnoException = new Error(
    `the workspace nests directories more than ${MAX_TREE_DEPTH} levels deep (at "${shown}"): too deep ${what}; flatten that tree`,
  );
  err.code = TOO_DEEP;
  return err;
}
