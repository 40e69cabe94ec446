// `agentbox events verify`: recompute the hash chain of a box's event log (events/local-jsonl)
// and name the first line that breaks it.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { verifyEventLog, verifyEventLogFile, type VerifyReport } from '../../management-api/src/adapters/events/log-verify.js';
import { listSegments } from '../../management-api/src/adapters/events/log-files.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { UsageError, UserError } from './cli-errors.js';

/** The state volume's place under a box root (`/var/lib/agentbox` in the image). */
const stateDirUnderRoot = runtimePaths({ AGENTBOX_ROOT: '/' }).stateDir;

export const usage = `Usage: agentbox events verify [--root DIR | PATH] [--json]

Recompute the hash chain of the box's event log (adapter events/local-jsonl) and report the first
line that breaks it: an edited line (hash mismatch), a removed, inserted or reordered line or
segment (prev or seq mismatch), or a malformed line.

Arguments:
  PATH         a log directory (holding events-000001.jsonl, …), or one segment file, checked
               on its own from its first line (its link to the segment before is not checked)

Options:
  --root DIR   the box's root: verify DIR${stateDirUnderRoot}/events
               (default: $AGENTBOX_ROOT, else ./.agentbox)
  --json       print {ok, path, files, events, head, firstBad?, incompleteTailBytes?}
  -h, --help   show this help

Removing lines from the very end leaves a shorter chain that still verifies: compare the head
printed here with one recorded elsewhere to catch that.

Exit codes: 0 intact, 1 a line breaks the chain (file, line number and what is wrong),
2 bad usage or the log cannot be read.`;

/** The log to verify: a directory of segments, or one segment file. */
async function resolveLog(positional: string | undefined, root: string | undefined): Promise<{ path: string; kind: 'dir' | 'file' }> {
  if (positional !== undefined && root !== undefined) throw new UsageError('give either --root DIR or a PATH, not both');
  const target = positional ?? path.join(runtimePaths({ AGENTBOX_ROOT: path.resolve(root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox') }).stateDir, 'events');
  const info = await stat(target).catch((err: NodeJS.ErrnoException) => {
    throw new UserError(`cannot read the event log ${target}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}${positional === undefined ? '; pass --root DIR (the box root) or the log directory' : ''}`);
  });
  if (info.isDirectory()) {
    if ((await listSegments(target, 'events')).length === 0) throw new UserError(`${target} holds no event log segments (events-000001.jsonl, …)`);
    return { path: target, kind: 'dir' };
  }
  return { path: target, kind: 'file' };
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: { type: 'string' }, json: { type: 'boolean' } } });
  if (positionals.length > 1) throw new UsageError(`expected at most one PATH, got ${positionals.length}`);
  const log = await resolveLog(positionals[0], values.root);
  let report: VerifyReport;
  try {
    report = log.kind === 'dir' ? await verifyEventLog(log.path) : await verifyEventLogFile(log.path);
  } catch (err) {
    throw new UserError(`cannot read the event log ${log.path}: ${(err as Error).message}`);
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ path: log.path, ...report }, null, 2)}\n`);
    return report.ok ? 0 : 1;
  }
  const where = (file: string): string => (log.kind === 'dir' ? path.join(log.path, file) : log.path);
  if (report.firstBad) {
    const bad = report.firstBad;
    process.stderr.write(`${where(bad.file)}:${bad.line}: ${bad.seq !== undefined ? `seq ${bad.seq}: ` : ''}${bad.reason}\n`);
    process.stderr.write(`the chain is intact up to seq ${report.head.seq} (${report.events} event${report.events === 1 ? '' : 's'} before this line)\n`);
    return 1;
  }
  const files = `${report.files} file${report.files === 1 ? '' : 's'}`;
  process.stdout.write(`${log.path}: intact, ${report.events} events in ${files}; head seq ${report.head.seq}, hash ${report.head.hash}\n`);
  if (report.incompleteTailBytes) {
    process.stdout.write(`  ${report.incompleteTailBytes} bytes after the last newline: an append cut short by a crash, never acknowledged (discarded when the log is next opened)\n`);
  }
  return 0;
}
