// `agentbox logs [-f] [--tail N] AGENT`: an agent's captured output (stdout to stdout, stderr to stderr), and with -f what follows until it ends.
import { parseArgs } from 'node:util';
import { resolveAgent } from './agent-api.js';
import { followOutput, readOutput, writeChunk, type Chunk } from './agent-output.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox logs [-f] [--tail N] [--json] AGENT

Print the output the box kept of an agent (AGENT: its id, a unique id prefix, or its name).

Options:
  -f, --follow     keep printing new output until the agent ends
  --tail N         only the last N lines of what was kept
${targetHelp} (one chunk {seq, stream, time, text} per line)
  -h, --help       show this help

Exit codes: 0 printed, 1 no such agent or unreachable, 2 bad usage.`;

/** The chunks that hold the last `lines` lines of `chunks` (the first one cut where the tail starts). */
export function tailOf(chunks: readonly Chunk[], lines: number): Chunk[] {
  if (lines === 0) return [];
  const out: Chunk[] = [];
  let left = lines;
  // The newline that ends the output closes its last line; it starts none.
  let atEnd = true;
  for (let i = chunks.length - 1; i >= 0; i--) {
    const chunk = chunks[i]!;
    for (let j = chunk.text.length - 1; j >= 0; j--) {
      const closesLast = atEnd;
      atEnd = false;
      if (chunk.text[j] !== '\n' || closesLast) continue;
      if (--left === 0) {
        out.unshift({ ...chunk, text: chunk.text.slice(j + 1) });
        return out;
      }
    }
    out.unshift(chunk);
  }
  return out;
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...targetOptions, follow: { type: 'boolean', short: 'f' }, tail: { type: 'string' } },
  });
  if (positionals.length > 1) throw new UsageError(`one agent, not ${positionals.length}`);
  if (values.tail !== undefined && !/^[0-9]+$/.test(values.tail)) throw new UsageError(`--tail ${JSON.stringify(values.tail)}: give a number of lines`);
  const target = await resolveTarget(values);
  const agent = await resolveAgent(target, positionals[0]);
  const write = values.json ? (c: Chunk) => process.stdout.write(`${JSON.stringify(c)}\n`) : writeChunk;
  const kept = await readOutput(target, agent.id);
  for (const chunk of values.tail === undefined ? kept : tailOf(kept, Number(values.tail))) write(chunk);
  if (values.follow) await followOutput(target, agent.id, kept.at(-1)?.seq ?? 0, write);
  return 0;
}
