// Resolves an agent's working directory inside the workspace, refusing `..`, absolute paths and link escapes.
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AdapterInputError } from '../../adapter-errors.js';
import { makeAgentDirectory } from '../../sandbox/subvolumes.js';

/** The names the box gives what it makes in the workspace root for itself. */
const BOX_OWN_PREFIX = '.abx-';

/**
 * The absolute working directory for `cwd` (relative to the workspace; absent means the workspace
 * itself). `workspace` is the workspace's real path. The directory must exist; its real path
 * must be the workspace or below it, so a link inside the workspace cannot send an agent elsewhere.
 */
export async function resolveCwd(workspace: string, cwd: string | undefined): Promise<string> {
  if (cwd === undefined || cwd === '' || cwd === '.') return workspace;
  if (typeof cwd !== 'string' || cwd.includes('\u0000')) throw refused(cwd, 'it is not a path');
  if (path.isAbsolute(cwd)) throw refused(cwd, 'it must be relative to the workspace');
  if (cwd.split(/[/\\]/).includes('..')) throw refused(cwd, 'it must not contain ".."');
  const joined = path.join(workspace, cwd);
  let real: string;
  try {
    real = await realpath(joined);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw refused(cwd, code === 'ENOENT' ? 'it does not exist in the workspace' : `it cannot be resolved (${code ?? 'error'})`);
  }
  if (real !== workspace && !real.startsWith(workspace + path.sep)) throw refused(cwd, 'it leads outside the workspace through a symbolic link');
  // The box's own directories there (builds under way, warm forks: workspace-files/temporary-records.ts, snapshots/warm-forks.ts) are never an agent's to write.
  if (real !== workspace && path.relative(workspace, real).startsWith(BOX_OWN_PREFIX))
    throw refused(cwd, `${BOX_OWN_PREFIX}* directories are the box's own (builds under way, warm forks)`);
  if (!(await stat(real)).isDirectory()) throw refused(cwd, 'it is not a directory');
  return real;
}

/**
 * The working directory of agent `name`: `cwd` as {@link resolveCwd} checks it, or, when absent,
 * the agent's own directory `<workspace>/<name>` (created when missing; on btrfs a subvolume, so
 * forks of its snapshots share their bytes), so that agents do not share one directory unless asked
 * to. `name` is a checked agent name (no `/`, no leading `.`).
 */
export async function agentCwd(workspace: string, cwd: string | undefined, name: string): Promise<string> {
  if (cwd !== undefined) return resolveCwd(workspace, cwd);
  await makeAgentDirectory(path.join(workspace, name));
  return resolveCwd(workspace, name);
}

function refused(cwd: unknown, why: string): AdapterInputError {
  return new AdapterInputError(`working directory ${JSON.stringify(cwd)} is not acceptable: ${why}`);
}
