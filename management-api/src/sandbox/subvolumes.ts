// btrfs subvolumes, which make a snapshot's clone and every fork of it share their bytes: whether a directory is one, and the launcher's `--subvolume` operations (ioctls Node cannot issue).
import { spawn } from 'node:child_process';
import { mkdir, rm, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { installedLauncher } from './launcher-binary.js';

/** statfs(2)'s f_type of btrfs. */
const BTRFS_SUPER_MAGIC = 0x9123683e;
/** The inode number of every subvolume's root directory (BTRFS_FIRST_FREE_OBJECTID): the disk budget walks into such a directory, a capture marks it unfit for a clone. */
export const SUBVOLUME_ROOT_INO = 256;
/** The launcher's exit when the kernel refuses an unprivileged destroy (agentbox-subvolume.c). */
const EXIT_DESTROY_REFUSED = 75;

/** True when `dir` is on btrfs; false when it is not, or cannot be asked. */
export async function onBtrfs(dir: string): Promise<boolean> {
  try {
    return (await statfs(dir)).type === BTRFS_SUPER_MAGIC;
  } catch {
    return false;
  }
}

/** True when `dir` (a path, or `/proc/self/fd/N`) is the root directory of a btrfs subvolume. */
export async function isSubvolume(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).ino === SUBVOLUME_ROOT_INO && (await onBtrfs(dir));
  } catch {
    return false;
  }
}

/** A failed operation, with the launcher's reason (EXDEV: another filesystem; ENOTTY or EINVAL: not a subvolume). */
export class SubvolumeError extends Error {}

/** The subvolume operations, through the launcher at `launcher` (the installation's by default). */
export class Subvolumes {
  readonly #launcher: string;

  constructor(launcher?: string) {
    this.#launcher = launcher ?? installedLauncher();
  }

  /** Make `dir` a new, empty subvolume. */
  create(dir: string): Promise<void> {
    return this.#run(['create', dir]).then(() => undefined);
  }

  /**
   * Make `dst` a snapshot of subvolume `src`: read-only for a clone kept in the store. A `src` given
   * as `{ fd }` (a descriptor of this process, open on the directory) is handed to the launcher as
   * its fd 3, which snapshots that very directory, whatever its path leads to by then. A path
   * through one of this process's descriptors (`/proc/self/fd/N/name`, as a fork is built inside
   * its parent's descriptor) is handed over the same way: the launcher's /proc/self is its own.
   */
  snapshot(src: string | { fd: number }, dst: string, options: { readonly: boolean }): Promise<void> {
    const op = options.readonly ? 'snapshot-ro' : 'snapshot';
    const fds: number[] = [];
    const hand = (p: string | { fd: number }): string => {
      if (typeof p !== 'string') {
        fds.push(p.fd);
        return `/proc/self/fd/${2 + fds.length}`;
      }
      const through = /^\/proc\/self\/fd\/(\d+)(\/.*)?$/.exec(p);
      if (!through) return p;
      fds.push(Number(through[1]));
      return `/proc/self/fd/${2 + fds.length}${through[2] ?? ''}`;
    };
    const args = [op, hand(src), hand(dst)];
    return this.#run(args, fds).then(() => undefined);
  }

  /**
   * Remove subvolume `dir` and all it holds: destroyed at once where the kernel lets this process
   * (root, or a filesystem mounted user_subvol_rm_allowed), else made writable and removed entry by
   * entry (an empty subvolume's owner may rmdir it). A `dir` that is no subvolume is removed as a tree.
   */
  async remove(dir: string): Promise<void> {
    if (await isSubvolume(dir)) {
      const code = await this.#run(['delete', dir], [], [EXIT_DESTROY_REFUSED]);
      if (code === 0) return;
    }
    await rm(dir, { recursive: true, force: true });
  }

  /** Run one operation; answers its exit code when it is 0 or one of `allowed`, else throws with the launcher's reason. */
  #run(args: string[], fds: readonly number[] = [], allowed: number[] = []): Promise<number> {
    return new Promise((resolve, reject) => {
      // Descriptors handed over become the launcher's 3, 4, …
      const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'ignore', 'pipe', ...fds];
      const child = spawn(this.#launcher, ['--subvolume', ...args], { env: {}, stdio, timeout: 30_000 });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      child.once('error', (err) => reject(new SubvolumeError(`agentbox-sandbox --subvolume ${args[0]}: ${err.message}`)));
      child.once('close', (code, signal) => {
        if (code !== null && (code === 0 || allowed.includes(code))) resolve(code);
        else reject(new SubvolumeError(stderr.trim() || `agentbox-sandbox --subvolume ${args[0]} ended by ${signal ?? `exit ${code}`}`));
      });
    });
  }
}

let installed: Subvolumes | undefined;

/** The installation's subvolume operations, made when first needed: a box that never meets btrfs never looks for the launcher. */
export function installedSubvolumes(): Subvolumes {
  installed ??= new Subvolumes();
  return installed;
}

/**
 * An agent's own directory, made when missing: on btrfs a subvolume, so that its snapshots keep a
 * clone and forks of them share its bytes (clones.ts); elsewhere, or when that fails, a plain
 * directory. Either is removed the same way (an empty subvolume's owner may rmdir it).
 */
export async function makeAgentDirectory(dir: string, subvolumes?: Subvolumes): Promise<void> {
  if (
    await stat(dir).then(
      () => true,
      () => false,
    )
  )
    return;
  if (await onBtrfs(path.dirname(dir))) {
    try {
      await (subvolumes ?? installedSubvolumes()).create(dir);
      return;
    } catch {
      // Made meanwhile by a spawn of the same name, or a btrfs that refuses: a plain directory will do.
    }
  }
  await mkdir(dir, { recursive: true });
}
