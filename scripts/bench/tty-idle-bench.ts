// Memory of idle tty agents: the API process's RSS and heap before and after 50 agents sit at a prompt (sandbox on, each with its server-side screen), beside the same 50 piped; two rounds.
import { cpus, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import { table } from './stats.js';
import { benchDir, benchManager, removeDir } from './tty-bench-manager.js';

const AGENTS = Number(process.env['AGENTBOX_BENCH_TTY_AGENTS'] ?? 50);
const ROUNDS = 2;
const SETTLE_MS = 1_000;
/** After the agents end, how long their terminals are still referenced (CLOSE_AFTER_EXIT_MS of tty-agents.ts, 5 s) and a margin: the next row's "before" must not count them. */
const RELEASE_MS = 6_000;
/** An agent that has drawn a short prompt and waits for a line: an idle tty agent. */
const IDLE = ['-c', 'printf "agent ready, waiting for a line> "; read line'];

// A full collection before each reading, so garbage is not counted as growth (works without --expose-gc).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Reading {
  rss: number;
  heapUsed: number;
  external: number;
}

async function settled(): Promise<Reading> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
}

/** Resolves once every agent has drawn its prompt (its output log has it). */
async function allPrompted(manager: ProcessManager, ids: readonly string[]): Promise<void> {
  const prompted = (id: string) =>
    manager
      .outputLog(id)
      .since(0)
      .some((c) => c.text.includes('waiting for a line'));
  const deadline = Date.now() + 30_000;
  for (const id of ids)
    while (!prompted(id)) {
      if (Date.now() > deadline) throw new Error(`tty idle bench: agent ${id} drew no prompt in 30 s (${JSON.stringify(manager.status(id))})`);
      await new Promise((r) => setTimeout(r, 20));
    }
}

/** Per-agent growth of the API process with AGENTS idle agents, `tty` or piped, in a fresh manager. */
async function growth(dir: string, name: string, tty: boolean): Promise<{ mode: string; before: Reading; after: Reading }> {
  const box = await benchManager(dir, name);
  try {
    const before = await settled();
    const ids: string[] = [];
    for (let i = 0; i < AGENTS; i++) ids.push((await box.manager.spawn({ name: `idle-${i}`, command: '/bin/sh', args: IDLE, tty })).id);
    await allPrompted(box.manager, ids);
    return { mode: box.mode, before, after: await settled() };
  } finally {
    await box.close();
    await new Promise((r) => setTimeout(r, RELEASE_MS));
  }
}

/** Run the idle-agents benchmark and return its report. */
export async function runTtyIdleBench(): Promise<string> {
  const dir = benchDir('agentbox-tty-idle-');
  try {
    const rows: string[][] = [];
    let mode = '';
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const tty of [false, true]) {
        const g = await growth(dir, `round-${round}-${tty ? 'tty' : 'piped'}`, tty);
        mode = g.mode;
        rows.push([
          `round ${round}: ${tty ? 'tty (server-side screen)' : 'piped (baseline)'}`,
          mb(g.before.rss),
          mb(g.after.rss),
          mb((g.after.rss - g.before.rss) / AGENTS),
          mb((g.after.heapUsed - g.before.heapUsed) / AGENTS),
          mb((g.after.external - g.before.external) / AGENTS),
        ]);
      }
    }
    return [
      `Idle agents — ${AGENTS} agents at a prompt per row, each row in a fresh process manager (the API process is the same), agents: ${mode}; after ${SETTLE_MS} ms and a full GC; load average ${loadavg()[0]!.toFixed(2)} on ${cpus().length} CPUs, Node ${process.version}`,
      '',
      table(['agents', 'RSS before MiB', 'RSS after MiB', 'RSS / agent MiB', 'heap used / agent MiB', 'external / agent MiB'], rows),
    ].join('\n');
  } finally {
    removeDir(dir);
  }
}
