// Signals to whole process groups, and records that let a restarted orchestrator end agents it lost track of.
import { mkdir, readFile, readdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

/**
 * Send `signal` to the process group led by `pid` (agents are spawned as group leaders, so their
 * children and grandchildren receive it too). False when the group no longer exists.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * The kernel's start time of `pid` (clock ticks since boot, /proc/<pid>/stat field 22), or
 * undefined where /proc is not available. Together with the pid it names one process: pids are
 * reused, start times are not.
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after the last ')' are plain.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Pid records of running agents in `dir` (on the volatile run directory). */
export class PidRecords {
  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /** Note that agent `id` runs as group leader `pid`. */
  async add(id: string, pid: number): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const startTime = await processStartTime(pid);
    await writeFile(path.join(this.dir, `${id}.json`), JSON.stringify({ pid, startTime }), { mode: 0o600 });
  }

  /** Agent `id` has ended. */
  async remove(id: string): Promise<void> {
    await unlink(path.join(this.dir, `${id}.json`)).catch(() => undefined);
  }

  /**
   * Kill the process groups of agents a previous run of the orchestrator left behind (it was
   * killed before it could end them), when the recorded process is provably still the same one.
   * Resolves with how many groups were killed.
   */
  async reapOrphans(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    let killed = 0;
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const file = path.join(this.dir, name);
      try {
        const { pid, startTime } = JSON.parse(await readFile(file, 'utf8')) as { pid: number; startTime?: string };
        if (Number.isInteger(pid) && pid > 1 && startTime !== undefined && (await processStartTime(pid)) === startTime && signalGroup(pid, 'SIGKILL')) {
          killed++;
          this.logger.warn({ event: 'OrphanAgentKilled', agent: name.slice(0, -5), pid }, 'killed an agent left running by a previous orchestrator');
        }
      } catch (err) {
        this.logger.warn({ event: 'PidRecordUnreadable', file, err }, 'ignored an unreadable agent pid record');
      }
      await unlink(file).catch(() => undefined);
    }
    return killed;
  }
}
