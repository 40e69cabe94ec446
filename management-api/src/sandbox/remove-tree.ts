// Removal of a directory tree an agent had, whatever it left in it (any depth, modes it changed).
import { execFile } from 'node:child_process';

/**
 * Remove `dir` and everything beneath it. Node's own recursive removal builds whole paths and
 * fails past PATH_MAX (an agent's 30-deep tree of 200-character names), so coreutils' rm does it:
 * it walks with directory descriptors, at any depth, and stays on the tree's filesystem. A tree
 * the owner cannot enter (modes the agent changed) is made enterable once, then removed again.
 * Rejects with rm's own words when the tree is still there.
 */
export async function removeTree(dir: string): Promise<void> {
  if ((await run('rm', ['-rf', '--one-file-system', '--', dir])).ok) return;
  await run('chmod', ['-R', 'u+rwX', '--', dir]);
  const again = await run('rm', ['-rf', '--one-file-system', '--', dir]);
  if (!again.ok) throw new Error(`could not remove ${dir}: ${again.stderr.trim().split('\n').slice(0, 3).join('; ')}`);
}

function run(command: string, args: readonly string[]): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve) => {
    // No shell; output bounded: a tree of a million entries must not grow the API's memory.
    execFile(command, args, { maxBuffer: 64 * 1024, timeout: 120_000 }, (err, _stdout, stderr) =>
      resolve({ ok: !err, stderr: String(stderr ?? err?.message ?? '') }),
    );
  });
}
