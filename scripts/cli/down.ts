// `agentbox down [--root DIR]`: stop the box running under a root, from any shell — the box of an
// `agentbox up --detach`, or of an `agentbox up` in another terminal.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive, runningSupervisor, unregisterBox } from './box-registry.js';
import { UsageError, UserError } from './cli-errors.js';

export const usage = `Usage: agentbox down [--root DIR] [--timeout SECONDS]

Stop the box running under DIR (default $AGENTBOX_ROOT or ./.agentbox): supervisord stops every
programme in reverse priority order, as Ctrl-C on \`agentbox up\` does. Whatever is still running
after the timeout is killed. The box is found in this user's list of running boxes (agentbox
boxes), else by supervisord's pid file under DIR.

Options:
  --root DIR         the box's local root (default $AGENTBOX_ROOT or ./.agentbox)
  --timeout SECONDS  how long the programmes may take to stop before they are killed (default 30)
  -h, --help         show this help

Exit codes: 0 stopped, 1 no box runs under DIR, 2 bad usage.`;

/**
 * SIGTERM supervisord `pid` and wait for it to end; past `timeoutMs`, SIGKILL its process group
 * (`agentbox up` starts it as a group leader, so the group is the box). Resolves true when it
 * stopped within the timeout.
 */
export async function stopSupervisor(pid: number, timeoutMs: number): Promise<boolean> {
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        process.kill(pid, 'SIGKILL');
      }
      return false;
    }
    await sleep(50);
  }
  return true;
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: { type: 'string' }, timeout: { type: 'string' } } });
  if (positionals.length) throw new UsageError(`unexpected argument "${String(positionals[0])}"`);
  const timeoutSec = Number(values.timeout ?? '30');
  if (!Number.isFinite(timeoutSec) || timeoutSec <= 0) throw new UsageError(`--timeout must be a positive number of seconds, not "${values.timeout}"`);
  const root = path.resolve(values.root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox');
  const pid = runningSupervisor(root);
  if (pid === undefined) {
    unregisterBox(root);
    throw new UserError(`no box is running under ${root} (agentbox boxes lists the running ones)`, 1);
  }
  process.stderr.write(`agentbox: stopping the box under ${root} (supervisord pid ${pid})…\n`);
  const clean = await stopSupervisor(pid, timeoutSec * 1000);
  unregisterBox(root, pid);
  process.stderr.write(clean ? 'agentbox: stopped\n' : `agentbox: the programmes did not stop within ${timeoutSec} s; killed\n`);
  return 0;
}
