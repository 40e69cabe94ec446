// `agentbox boxes`: the boxes running on this machine for this user — root, ports, supervisord's
// pid and whether each is ready — from the registry `agentbox up` writes.
import { parseArgs } from 'node:util';
import { runningBoxes, type BoxEntry } from './box-registry.js';
import { UsageError } from './cli-errors.js';
import { statusOf } from './wait-ready.js';

export const usage = `Usage: agentbox boxes [--json]

List the boxes running on this machine (started by this user with agentbox up, attached or
--detach): each one's root, its ports, supervisord's pid, whether \`agentbox up\` still owns it, and
whether it is ready (GET /ready). Stop one with \`agentbox down --root ROOT\`.

Options:
  --json      print a JSON array: [{root, manifest, pid, upPid?, detached, apiUrl, metricsUrl, ports: [{name, port}], startedAt, ready}]
  -h, --help  show this help

Exit codes: 0 (also when no box runs), 2 bad usage.`;

/** Whether the box answers 200 on /ready within a second. */
async function isReady(box: BoxEntry): Promise<boolean> {
  return (await statusOf(`${box.apiUrl}/ready`)) === 200;
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  if (positionals.length) throw new UsageError(`unexpected argument "${String(positionals[0])}"`);
  const boxes = runningBoxes();
  const rows = await Promise.all(boxes.map(async (b) => ({ ...b, detached: b.upPid === undefined, ready: await isReady(b) })));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write('no box is running (start one with agentbox up --local)\n');
    return 0;
  }
  const table = [
    ['ROOT', 'PID', 'READY', 'PORTS', 'STARTED'],
    ...rows.map((r) => [
      r.root,
      `${r.pid}${r.detached ? ' (detached)' : ''}`,
      r.ready ? 'yes' : 'no',
      r.ports.map((p) => `${p.name} ${p.port}`).join(', '),
      r.startedAt,
    ]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) process.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`);
  return 0;
}
