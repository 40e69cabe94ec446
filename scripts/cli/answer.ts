// `agentbox answer ID TEXT`: answer an open input request — typed into the agent's terminal (then Enter), or handed to the agent that asked.
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { idSegment } from './url-segments.js';

export const usage = `Usage: agentbox answer ID TEXT|- [--no-enter] [--url URL] [--manifest FILE] [--root DIR] [--json]

Answer the open input request ID (see \`agentbox inputs\`). For a prompt on a tty agent's terminal,
TEXT is typed into it, then Enter; for a request the agent made through the API, TEXT is handed
to it. TEXT - reads the answer from standard input (one trailing newline dropped): use it for a
password, which then stays out of your shell's history and the process list. The box records
only the answer's length, never its text.

Options:
  --no-enter       type TEXT without pressing Enter after it
${targetHelp}
  -h, --help       show this help

Exit codes: 0 answered, 1 refused (answered already, withdrawn, ended) or unreachable, 2 usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, 'no-enter': { type: 'boolean' } } });
  const [id, given] = positionals;
  if (!id || given === undefined || positionals.length > 2)
    throw new UsageError('name one input request and the answer: agentbox answer ID TEXT (or - to read it from standard input)');
  const text = given === '-' ? (await readStdin()).replace(/\r?\n$/, '') : given;
  const enter = !values['no-enter'];
  if (text === '' && !enter) throw new UsageError('an empty answer without Enter types nothing');
  const target = await resolveTarget(values);
  const res = await call(target, 'POST', `/v1/input-requests/${idSegment(id, 'an input request id')}`, { text, enter });
  if (res.status !== 200) throw refusal(`answering ${id}`, res);
  const request = res.body['inputRequest'] as { id: string; agent: string; reason: string; state: string };
  if (values.json) process.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
  else
    process.stdout.write(
      `${request.id}: ${request.state} (${request.reason === 'prompt' ? `typed into ${request.agent}'s terminal${enter ? ', then Enter' : ''}` : `handed to ${request.agent}`})\n`,
    );
  return 0;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
