// Snapshots of agents' working directories: capture one, restore one in place (swapped in whole), and build a fork's new directory.
import { randomBytes } from 'node:crypto';
import { open, realpath, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../errors.js';
import { openWorkspace } from '../workspace-files/agent-workspace.js';
import { at, atOwn, DIR_FLAGS, walkDirs } from '../workspace-files/dir-fd.js';
import { removeTree } from '../workspace-files/file-delete.js';
import { parseFilePath } from '../workspace-files/file-path.js';
import {
  forkStaging,
  placeOf,
  replacedAside,
  restoreStaging,
  type RecordedTemporary,
  type TemporaryKind,
  type TemporaryRecords,
} from '../workspace-files/temporary-records.js';
import type { SnapshotSummary } from './snapshot-manifest.js';
import type { SnapshotStore } from './snapshot-store.js';
import { buildBytes } from './build-room.js';
import type { WarmForks } from './warm-forks.js';

/** The agent record a snapshot is made of or restored into. */
export interface AgentDir {
  id: string;
  name: string;
  /** Its working directory relative to the workspace (`.` for the workspace itself). */
  cwd: string;
}

/** Ids files are given to; undefined keeps the box's own. */
export type Owner = { uid: number; gid: number } | undefined;

/**
 * Who a fork's directory is given to, asked once its copy is known: `offered` is whom a warm copy
 * was built as (spare ids on a root box, which a new name adopts; warm-forks.ts WarmOwners), or
 * undefined when the tree is built for the fork.
 */
export type ForkOwner = (offered: Owner) => Promise<Owner>;

const sameOwner = (a: Owner, b: Owner): boolean => a?.uid === b?.uid && a?.gid === b?.gid;

/** The workspace itself holds every agent's directory: it is never one agent's to snapshot or replace. */
function refuseWholeWorkspace(agent: AgentDir, what: string): void {
  if (agent.cwd === '.' || agent.cwd === '')
    throw new ApiError(
      'ABX_ERR_CONFLICT',
      `agent ${agent.id} works in the workspace itself, which holds other agents' directories: it cannot be ${what} (spawn agents in a directory of their own)`,
    );
}

/**
 * Capture the agent's working directory, opened as the files API opens it (its real path
 * confined to the workspace, then walked by descriptors). Each file is as of its own read: a
 * file is read whole and kept only if its size, mtime and ctime did not move meanwhile (read
 * again up to three times, then kept and named in `changedPaths`); files are not all of one
 * instant while the agent writes.
 */
export async function captureAgent(
  store: SnapshotStore,
  workspaceDir: string,
  agent: AgentDir,
  label?: string,
  /**
   * `allowanceBytes`: what the agent's budget has left for it (CaptureSource.allowanceBytes), when
   * one applies; `maxHoleBytes`: the holes of sparse files the capture may read through
   * (CaptureSource.maxHoleBytes), the agent's disk budget; `maxEntries`: the entries it may hold,
   * the agent's limits.entries.
   */
  bounds: { allowanceBytes?: number | undefined; maxHoleBytes?: number | undefined; maxEntries?: number | undefined } = {},
): Promise<SnapshotSummary> {
  refuseWholeWorkspace(agent, 'snapshotted');
  const ws = await openWorkspace(workspaceDir, agent.cwd);
  try {
    return await store.create(
      {
        rootFd: ws.root.fd,
        ownUid: ws.ownUid,
        agent: { id: agent.id, name: agent.name, cwd: agent.cwd },
        ...(bounds.allowanceBytes !== undefined ? { allowanceBytes: bounds.allowanceBytes } : {}),
        ...(bounds.maxHoleBytes !== undefined ? { maxHoleBytes: bounds.maxHoleBytes } : {}),
        ...(bounds.maxEntries !== undefined ? { maxEntries: bounds.maxEntries } : {}),
      },
      label,
    );
  } finally {
    await ws.close();
  }
}

/** What a restore's or a fork's build is given besides what it builds. */
export interface BuildOptions {
  /** What the workspace volume may still take (SnapshotStore.materialize). */
  room?: () => Promise<number>;
  /** Where the build is recorded before it is made, so that one a kill cut short goes at the next start. */
  records?: TemporaryRecords;
  /** Copies built ahead: one ready is taken instead of a build (warm-forks.ts). */
  warm?: WarmForks;
}

/** What a warm copy of snapshot `id` holds: the snapshot's own counts, as a build would answer them. */
function copied(store: SnapshotStore, id: string): { files: number; bytes: number } {
  const { files, bytes } = store.get(id).stats;
  return { files, bytes };
}

/**
 * A ready copy of snapshot `id` from `warm`, given to the owner `ownerFor` picks and renamed to
 * `name` in `parent` (where a build would have been made); false when none was ready, or the copy
 * cannot be renamed there (another filesystem mounted below the workspace), and the tree is then
 * built as always.
 */
async function placeWarmCopy(
  store: SnapshotStore,
  warm: WarmForks | undefined,
  id: string,
  ownerFor: ForkOwner,
  parent: FileHandle,
  name: string,
): Promise<boolean> {
  const copy = await warm?.take(id);
  if (!copy) return false;
  try {
    const owner = await ownerFor(copy.owner);
    // Built as someone else (the box, or spare ids another name's fork did not adopt): given entry by entry (no byte copied), while the copy is still in the box's 0700 directory.
    if (!sameOwner(owner, copy.owner)) await store.regive(id, copy.path, owner ?? boxIds());
    await rename(copy.path, atOwn(parent, name));
    copy.placed();
    return true;
  } catch (err) {
    await copy.discard();
    if ((err as NodeJS.ErrnoException).code === 'EXDEV') return false;
    throw err;
  }
}

/** The box's own ids: whom a copy built for spare ids is given back to when agents share the box's. */
const boxIds = (): { uid: number; gid: number } => ({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });

/**
 * Replace an ended agent's working directory with snapshot `id`: built beside it in
 * `.abx-restore-<random>` (0700, the box's, given to the directory's owner entry by entry),
 * then the old directory renamed aside and the new one renamed in, and the old one removed. A
 * failure before the swap leaves the directory as it was. With `records`, the build is recorded
 * first, so that a kill anywhere in this leaves nothing for good (temporary-sweep.ts).
 */
export async function restoreAgent(
  store: SnapshotStore,
  workspaceDir: string,
  agent: AgentDir,
  id: string,
  options: BuildOptions & {
    /** Told when the replaced directory, renamed aside as `name`, could not be removed whole (the restore stands). */
    leftOver?: (name: string, err: unknown) => void;
  } = {},
): Promise<{ files: number; bytes: number; cloned: boolean; warm: boolean }> {
  const { room, leftOver, records, warm } = options;
  store.get(id);
  refuseWholeWorkspace(agent, 'restored in place');
  const ws = await openWorkspace(workspaceDir, agent.cwd);
  const { path: dir, owner } = ws;
  await ws.close();
  // Its real path, walked again by descriptors (as a fork is built: buildFork says why); a link swapped in since is refused.
  const segments = path.relative(await realpath(workspaceDir), dir).split(path.sep);
  const leaf = segments.at(-1)!;
  const staging = restoreStaging();
  const aside = replacedAside(staging);
  return inParent(
    workspaceDir,
    segments,
    false,
    async (parent, record) => {
      const recorded = await record?.(staging, 'restore', leaf);
      try {
        const warmed = await placeWarmCopy(store, warm, id, async () => owner, parent, staging);
        const made = warmed ? { ...copied(store, id), cloned: false } : await store.materialize(id, atOwn(parent, staging), owner, 'restore', room);
        await rename(at(parent, leaf), at(parent, aside));
        await rename(at(parent, staging), at(parent, leaf)).catch(async (err: unknown) => {
          // Not swapped after all: the working directory goes back, as any failure before the swap leaves it.
          await rename(at(parent, aside), at(parent, leaf));
          throw err;
        });
        // Restored by now: a tree the box may not remove (another owner's directory on a box that is not root, an immutable file) is said, not answered as a failed restore.
        await removeIfThere(parent, aside).catch((err: unknown) => leftOver?.(aside, err));
        return { files: made.files, bytes: made.bytes, cloned: made.cloned === true, warm: warmed };
      } finally {
        // A build that could not be removed (removeIfThere threw) keeps its record: the next start tries again.
        await removeIfThere(parent, staging);
        recorded?.end();
      }
    },
    records,
  );
}

/** A fork's working directory, built and in place; `discard` removes it when the agent could not start. */
export interface ForkDir {
  /** Relative to the workspace: what the spawn is given as cwd. */
  cwd: string;
  /** Made as a snapshot of the snapshot's clone (btrfs), not by copying. */
  cloned: boolean;
  /** A warm copy built ahead, renamed into place (warm-forks.ts). */
  warm: boolean;
  discard(): Promise<void>;
}

/**
 * Build snapshot `id` as a new agent's working directory: `cwd` when the caller named one (it
 * must not exist, or be an empty directory), else `<name>.<8 hex>`, a directory no agent name
 * can have (names hold no dot), so forks started at once never meet. Built in a private
 * `.abx-fork-<random>` beside it and renamed into place, given to whom `owner` picks (the new agent's uid).
 * With `records`, the build is recorded first: one a kill cut short goes at the next start.
 *
 * Everything goes through descriptors, never a path: `cwd`'s parents may be another agent's
 * directories, whose agent can swap a directory for a link at any moment. Its parents are walked
 * (and made) from the workspace's descriptor one name at a time without following a link, the
 * build, the rename and a discard happen inside the parent's descriptor (/proc/self/fd/N/<name>),
 * and a tree is removed by descriptors too (removeTree): a link met anywhere is refused or
 * removed, never followed.
 */
export async function buildFork(
  store: SnapshotStore,
  workspaceDir: string,
  id: string,
  forAgent: {
    name: string;
    cwd: string | undefined;
    owner: ForkOwner;
    /** The new agent's disk budget in bytes, when it has one. */
    diskBudget?: number | undefined;
    /** The entries its disk walks may meet (limits.entries), when it has such a budget. */
    entriesBudget?: number | undefined;
  },
  options: BuildOptions = {},
): Promise<ForkDir> {
  const { name, cwd, owner, diskBudget, entriesBudget } = forAgent;
  const { room, records, warm } = options;
  const summary = store.get(id);
  // Refused before a byte is written: a fork over its budget would be ended at its first disk walk
  // and leave its directory behind (a file with 200 hard links is stored once, built 200 times).
  const needs = buildBytes(summary);
  if (diskBudget !== undefined && needs > diskBudget)
    throw new ApiError(
      'ABX_ERR_FILE_TOO_LARGE',
      `snapshot ${id} builds ${needs} bytes (every hard link a file of its own), over the new agent's disk budget (sandbox.limits.disk, ${diskBudget} bytes): it would be ended at its first disk walk; fork it with a larger budget`,
    );
  const { files, dirs, symlinks } = summary.stats;
  const entries = files + dirs + symlinks;
  if (entriesBudget !== undefined && entries > entriesBudget)
    throw new ApiError(
      'ABX_ERR_FILE_TOO_LARGE',
      `snapshot ${id} holds ${entries} entries, more than the new agent may keep (limits.entries, ${entriesBudget}): it would be ended at its first disk walk; fork it with a larger entry budget (a spawn's limits.entries may ask up to sandbox.limits.entries, which the manifest may raise)`,
    );
  const segments = cwd !== undefined ? parseFilePath(cwd) : [`${name}.${randomBytes(4).toString('hex')}`];
  const rel = segments.join('/');
  if (rel === '') throw new ApiError('ABX_ERR_VALIDATION', 'cwd: a fork needs a directory of its own, not the workspace itself');
  const leaf = segments.at(-1)!;
  const staging = forkStaging();
  let cloned = false;
  let warmed = false;
  await inParent(
    workspaceDir,
    segments,
    true,
    async (parent, record) => {
      const recorded = await record?.(staging, 'fork');
      try {
        warmed = await placeWarmCopy(store, warm, id, owner, parent, staging);
        if (!warmed) cloned = (await store.materialize(id, atOwn(parent, staging), await owner(undefined), 'fork', room)).cloned === true;
        try {
          // rename replaces an empty directory, and refuses a full one (ENOTEMPTY) or a file (ENOTDIR).
          await rename(at(parent, staging), at(parent, leaf));
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR')
            throw new ApiError('ABX_ERR_CONFLICT', `cwd ${JSON.stringify(rel)} exists and is not an empty directory: a fork starts in a directory of its own`);
          throw err;
        }
      } finally {
        // A build that could not be removed (removeIfThere threw) keeps its record: the next start tries again.
        await removeIfThere(parent, staging);
        recorded?.end();
      }
    },
    records,
  );
  return {
    cwd: rel,
    cloned,
    warm: warmed,
    // A parent made a link since the build leads nowhere of the box's: left as it is, and the start's own error is what the caller reports.
    discard: () =>
      inParent(workspaceDir, segments, false, (parent) => removeIfThere(parent, leaf)).catch((err: unknown) => {
        if (!(err instanceof ApiError)) throw err;
      }),
  };
}

/** Records a temporary about to be made in the parent of {@link inParent}, as a record of the workspace's root and `segments`' parents. */
type RecordIn = (name: string, kind: TemporaryKind, replaces?: string) => Promise<RecordedTemporary>;

/**
 * Run `work` on the directory holding the last of `segments`, opened from the workspace one name
 * at a time without following a link (made when missing, with `create`). A link on the way is
 * refused: ABX_ERR_FILE_PATH. With `records`, `work` is given a recorder of what it makes there.
 */
async function inParent<T>(
  workspaceDir: string,
  segments: readonly string[],
  create: boolean,
  work: (parent: FileHandle, record: RecordIn | undefined) => Promise<T>,
  records?: TemporaryRecords,
): Promise<T> {
  const base = await realpath(workspaceDir);
  const root = await open(base, DIR_FLAGS);
  const parents = segments.slice(0, -1);
  // The workspace's root is the recorded workspace (its inode and birth), the parents the way down from it.
  const record: RecordIn | undefined =
    records && (async (name, kind, replaces) => records.in(placeOf(base, base, await root.stat({ bigint: true }))).begin(parents, name, kind, replaces));
  try {
    const parent = await walkDirs(root, parents, create ? { owner: undefined } : undefined);
    try {
      return await work(parent, record);
    } finally {
      if (parent !== root) await parent.close();
    }
  } finally {
    await root.close();
  }
}

/** The errors of opening a directory that is not there, or not a directory. */
const GONE_OR_NOT_A_DIR = new Set(['ENOENT', 'ELOOP', 'ENOTDIR']);

/**
 * Remove directory `name` of `parent` and all it holds (a subvolume too), by descriptors, read-only
 * directories too (the agent's, or the snapshot's built back); nothing there, or a link there, is
 * left as it is.
 */
async function removeIfThere(parent: FileHandle, name: string): Promise<void> {
  await removeTree(parent, name, name, { unseal: true }).catch((err: unknown) => {
    // Gone, or not a directory the box made (a link or a file there: never followed): nothing of the box's to remove.
    if (err instanceof ApiError || GONE_OR_NOT_A_DIR.has((err as NodeJS.ErrnoException).code ?? '')) return;
    throw err;
  });
}
