// A box run as users run it, `agentbox up --local --manifest FILE --root DIR` with the installed bin:
// its output in a file, stopped gently (SIGTERM, as Ctrl-C) or killed hard (SIGKILL of its whole process tree).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { agentboxBin, runAgentboxAsync } from '../../helpers/cli.js';
import { eventLines, type EventLine } from '../../helpers/boot-event-lines.js';
import { waitForStatus } from '../../runtime-contract/support/box-runner.js';
import { waitFor } from '../../helpers/wait.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';

/** A running (or finished) `up --local` box. */
export interface LocalBox {
  readonly apiUrl: string;
  readonly proc: ChildProcess;
  /** Resolves with the exit code of `agentbox up` (null when killed by a signal). */
  readonly exit: Promise<number | null>;
  /** Everything printed so far. */
  output(): string;
  /** The JSON event lines printed so far. */
  events(): EventLine[];
  /** Resolves once `/ready` answers 200; rejects with the output's tail if the box exits or times out first. */
  ready(timeoutMs?: number): Promise<void>;
  /** SIGTERM to `agentbox up` (what Ctrl-C does), then its exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL of every process of the box at once: no programme gets to say goodbye. */
  killHard(): Promise<void>;
}

/** Options of {@link startLocalBox}. */
export interface LocalBoxOptions {
  manifestFile: string;
  root: string;
  /** Where the box's API listens (the manifest's [api] port). */
  apiPort: number;
  /** The file its output is appended to. */
  logFile: string;
  /** Variables for `agentbox up` beyond PATH and HOME (a provider's key, as an operator exports it). */
  env?: Record<string, string>;
}

/** The pids of `pid` and all its descendants, parents before children. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i]!;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue; // already gone
    }
    for (const task of tasks) {
      try {
        out.push(...readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
      } catch {
        // the task ended meanwhile
      }
    }
  }
  return [...new Set(out)];
}

/** Send `sig` to `pid`, which may have gone already. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** Whether `pid` still runs (a zombie waiting for its reaper does not). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Start `agentbox up --local`; resolves once the process is spawned. */
export function startLocalBox(options: LocalBoxOptions): LocalBox {
  // Every box runs its own egress proxy: on a free port, as tests run boxes side by side.
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', AGENTBOX_EGRESS_PORT: '0', ...options.env };
  // A file, not a pipe: supervisord reopens its stdout by path to forward its programmes' output.
  const fd = openSync(options.logFile, 'a');
  const proc = spawn(process.execPath, [agentboxBin, 'up', '--local', '--manifest', options.manifestFile, '--root', options.root], {
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const apiUrl = `http://127.0.0.1:${options.apiPort}`;
  const output = (): string => readFileSync(options.logFile, 'utf8');
  return {
    apiUrl,
    proc,
    exit,
    output,
    events: () => eventLines(output().split('\n')),
    async ready(timeoutMs = 120_000) {
      const exited = exit.then((code) => Promise.reject(new Error(`agentbox up exited (${code}) before /ready`)));
      await Promise.race([waitForStatus(`${apiUrl}/ready`, 200, timeoutMs), exited]).catch((err: Error) => {
        throw new Error(`${err.message}\n${output().slice(-4000)}`);
      });
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      return exit;
    },
    async killHard() {
      // An exited box's pid may already belong to another process.
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      // Every process stopped first, then killed: killed one by one, a process whose parent died
      // first could still act on its parent-death signal (the box would stop gracefully and, a mesh
      // client, deregister) while this loop is descheduled on a busy machine. The tree is read again
      // until no process is left unstopped (one forked meanwhile is stopped in the next round).
      const pids: number[] = [];
      for (let fresh = processTree(proc.pid!); fresh.length > 0; fresh = processTree(proc.pid!).filter((pid) => !pids.includes(pid))) {
        for (const pid of fresh) signal(pid, 'SIGSTOP');
        pids.push(...fresh);
      }
      for (const pid of pids) signal(pid, 'SIGKILL');
      await exit;
      await waitFor('every process of the box to end after SIGKILL', () => !pids.some(alive), 10_000);
    },
  };
}

/** The box's API key under `root`. */
export function apiKeyOf(root: string): string {
  return readFileSync(runtimePaths({ AGENTBOX_ROOT: root }).apiKeyFile, 'utf8').trim();
}

/** `agentbox identity --root root --json` (creates the key as a user does before listing it on a host). */
export async function identityOf(root: string): Promise<{ pubkey: string; npub: string }> {
  const r = await runAgentboxAsync(['identity', '--root', root, '--json']);
  if (r.code !== 0) throw new Error(`agentbox identity --root ${root} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as { pubkey: string; npub: string };
}
