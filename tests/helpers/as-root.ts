// Commands as root for tests that loop-mount real filesystems: run directly when the test runs as root, else through sudo without a password prompt.
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** `argv` as root: itself when this process is root, else through `sudo -n`. */
export const asRoot = (argv: string[]): string[] => (process.getuid?.() === 0 ? argv : ['sudo', '-n', ...argv]);

export function runAsRoot(argv: string[]): SpawnSyncReturns<string> {
  const [cmd, ...args] = asRoot(argv);
  return spawnSync(cmd!, args, { encoding: 'utf8' });
}

/** True when commands can run as root here (root, or passwordless sudo). */
export const canRunAsRoot = (): boolean => runAsRoot(['true']).status === 0;

/** mkfs tools live in /usr/sbin, which a plain user's PATH may lack. */
export const sbinEnv = (): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${process.env['PATH']}:/usr/sbin:/sbin` });

/**
 * A new filesystem of `sizeMiB` made by `mkfs` (argv, the image path appended) in an image under
 * `dir`, loop-mounted at `dir/<name>` and given to this process's uid; `unmount` frees the loop
 * device too. Throws with mount's reason when it cannot be mounted.
 */
export function mountImage(dir: string, name: string, sizeMiB: number, mkfs: string[]): { mnt: string; unmount(): void } {
  const image = path.join(dir, `${name}.img`);
  const mnt = path.join(dir, name);
  mkdirSync(mnt);
  execFileSync('truncate', ['-s', `${sizeMiB}M`, image]);
  execFileSync(mkfs[0]!, [...mkfs.slice(1), image], { env: sbinEnv(), stdio: 'pipe' });
  const mounted = runAsRoot(['mount', '-o', 'loop', image, mnt]);
  if (mounted.status !== 0) throw new Error(`mount ${image}: ${mounted.stderr}`);
  runAsRoot(['chown', `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`, mnt]);
  return { mnt, unmount: () => void runAsRoot(['umount', mnt]) };
}
