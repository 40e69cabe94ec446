// `agentbox status`: the box at a glance — readiness, adapter slots (from /health) and the
// supervised programmes (from supervisord).
import { parseArgs } from 'node:util';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { getFromBox, resolveTarget, targetHelp, targetOptions } from './box-target.js';

export const usage = `Usage: agentbox status [--url URL] [--manifest FILE] [--root DIR] [--json]

Show whether the box is ready, the state of each adapter slot, and every supervised programme.

Options:
${targetHelp}
  -h, --help       show this help

Exit codes: 0 ready, 3 running but not ready, 1 unreachable.`;

/** One line of `supervisorctl status`. */
export interface ProgramStatus {
  name: string;
  state: string;
  detail: string;
}

/** Parse `supervisorctl status` output (`name  STATE  detail`). */
export function parseSupervisorStatus(text: string): ProgramStatus[] {
  return text
    .split('\n')
    .map((l) => /^(\S+)\s+([A-Z]+)\s*(.*)$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1]!, state: m[2]!, detail: m[3]!.trim() }));
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: targetOptions });
  const target = await resolveTarget(values);
  const [ready, health] = await Promise.all([getFromBox(target, '/ready'), getFromBox(target, '/health')]);
  let programs: ProgramStatus[] | undefined;
  if (existsSync(target.supervisordConf)) {
    // supervisorctl exits 3 when a programme is not RUNNING; its output is still the table.
    const out = await promisify(execFile)('supervisorctl', ['-c', target.supervisordConf, 'status'], { timeout: 10_000 }).catch((err: { stdout?: string }) => ({
      stdout: err.stdout ?? '',
    }));
    programs = parseSupervisorStatus(out.stdout);
  }
  const report = { url: target.url, ready: ready.status === 200, readiness: ready.body, health: health.body, programs: programs ?? null };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const r = ready.body as { reason?: string; missing?: string[]; degraded?: string[] };
    process.stdout.write(
      `${target.url}: ${report.ready ? 'READY' : `NOT READY (${r.reason ?? 'unknown'}${r.missing?.length ? `: ${r.missing.join(', ')}` : ''})`}\n`,
    );
    const h = health.body as { status?: string; slots?: Record<string, { impl?: string; state?: string; reason?: string }> };
    process.stdout.write(`health: ${h.status ?? 'unknown'}\n`);
    for (const [slot, s] of Object.entries(h.slots ?? {}))
      process.stdout.write(`  ${slot.padEnd(13)} ${String(s.impl ?? '').padEnd(15)} ${s.state ?? ''}${s.reason ? ` (${s.reason})` : ''}\n`);
    if (programs) {
      process.stdout.write('programmes:\n');
      for (const p of programs) process.stdout.write(`  ${p.name.padEnd(16)} ${p.state.padEnd(9)} ${p.detail}\n`);
    }
  }
  return report.ready ? 0 : 3;
}
