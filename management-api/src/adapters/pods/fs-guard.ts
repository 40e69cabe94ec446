// Walks pod paths on disk component by component, refusing symbolic links, so nothing resolves outside the pod root.
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AdapterConflictError, AdapterInputError } from '../../adapter-errors.js';
import { syncDirectory } from '../../durable-fs.js';

/** Where a pod path lands on disk. */
export interface WalkResult {
  /** The file system path the pod path maps to (it may not exist). */
  fsPath: string;
  /** lstat of `fsPath` when it exists. */
  stat?: Stats;
  /** Set when an intermediate component exists but is a resource, not a container. */
  blockedAt?: string;
}

/** The error for a symbolic link met inside the pod: links are never followed, wherever they point. */
export function symlinkRefused(podPath: string): AdapterInputError {
  return new AdapterInputError(`pod path "${podPath}" passes through a symbolic link; links inside a pod are not followed`);
}

/**
 * lstat every component of `segments` under `root` (the root's real path). A symbolic link
 * anywhere is refused, even one pointing back inside: following links would make the
 * containment check depend on link targets that can change between check and use.
 */
export async function walk(root: string, segments: readonly string[]): Promise<WalkResult> {
  let current = root;
  for (let i = 0; i < segments.length; i++) {
    current = path.join(current, segments[i]!);
    const stat = await lstatOrUndefined(current);
    if (!stat) return { fsPath: path.join(root, ...segments) };
    if (stat.isSymbolicLink()) throw symlinkRefused(`/${segments.slice(0, i + 1).join('/')}`);
    const last = i === segments.length - 1;
    if (last) return { fsPath: current, stat };
    if (!stat.isDirectory()) return { fsPath: path.join(root, ...segments), blockedAt: `/${segments.slice(0, i + 1).join('/')}` };
  }
  return { fsPath: root, stat: await lstat(root) };
}

/**
 * Create the containers `segments` under `root` (like mkdir -p), refusing links and resources in
 * the way. Resolves true when the last one was created by this call.
 */
export async function ensureContainers(root: string, segments: readonly string[]): Promise<boolean> {
  let current = root;
  let created = false;
  for (let i = 0; i < segments.length; i++) {
    current = path.join(current, segments[i]!);
    const podPath = `/${segments.slice(0, i + 1).join('/')}`;
    created = false;
    try {
      await mkdir(current, { mode: 0o700 });
      // The new entry in the parent must survive a crash like the data written below it.
      await syncDirectory(path.dirname(current));
      created = true;
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const stat = await lstat(current);
    if (stat.isSymbolicLink()) throw symlinkRefused(podPath);
    if (!stat.isDirectory()) throw new AdapterConflictError(`"${podPath}" is a resource, so it cannot hold members`);
  }
  return created;
}

/**
 * Open a file without following a link in its last component (O_NOFOLLOW), then check that its
 * directory still resolves inside `root` — the second line of defence if a component was swapped
 * for a link after {@link walk} looked at it.
 */
export async function openInside(root: string, fsPath: string, podPath: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(fsPath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkRefused(podPath);
    throw err;
  }
  try {
    await assertInside(root, path.dirname(fsPath), podPath);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Refuse `dir` when its real path is not `root` or below it. */
export async function assertInside(root: string, dir: string, podPath: string): Promise<void> {
  const real = await realpath(dir);
  if (real !== root && !real.startsWith(root + path.sep)) throw symlinkRefused(podPath);
}

async function lstatOrUndefined(p: string): Promise<Stats | undefined> {
  try {
    return await lstat(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}
