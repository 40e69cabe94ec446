// Copying a store's directory tree into a backup and back: regular files and directories only,
// permission bits without setuid, setgid or sticky, and the stores' own temporary files left out.
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { copyFileStepped } from './stepped-write.js';

/** Permission bits kept: read, write and execute only. */
export const KEPT_MODE = 0o777;

/** Names a store writes while it works and never reads back as data (a pod's staged file, a snapshot's scratch). */
export type SkipName = (relative: string) => boolean;

/**
 * Copy the tree at `from` into `to`, `first` subdirectories before the others (a snapshot store's
 * manifests before the chunks they name). Returns the relative paths copied; a missing `from` copies nothing.
 */
export async function copyTree(from: string, to: string, options: { skip?: SkipName; first?: readonly string[] } = {}): Promise<string[]> {
  const copied: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const source = path.join(from, relative);
    let names: string[];
    try {
      names = await readdir(source);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await mkdir(path.join(to, relative), { recursive: true, mode: 0o700 });
    const order =
      relative === '' && options.first
        ? [...options.first.filter((n) => names.includes(n)), ...names.filter((n) => !options.first!.includes(n))]
        : names.sort();
    for (const name of order) {
      const rel = relative === '' ? name : `${relative}/${name}`;
      if (options.skip?.(rel)) continue;
      const info = await lstat(path.join(from, rel)).catch((err: NodeJS.ErrnoException) => {
        // Removed since the listing (a pod deleted, a snapshot swept): it is simply not in the copy.
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (!info) continue;
      if (info.isDirectory()) await walk(rel);
      else if (info.isFile()) {
        if (!(await copyFileStepped(path.join(from, rel), path.join(to, rel)))) continue;
        await chmod(path.join(to, rel), info.mode & KEPT_MODE);
        copied.push(rel);
      }
      // Symlinks, devices, sockets and fifos are no store's data: never copied.
    }
  };
  await walk('');
  return copied;
}
