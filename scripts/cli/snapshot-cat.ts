// `agentbox snapshot cat SNAPSHOT PATH`: one file of a snapshot, its bytes to standard output, read from the store without forking it.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { cutOff, FILE_CUT_REASONS } from './cp-download.js';
import { refused, rootPath, send } from './cp-remote.js';
import { stdoutSink } from './stdout-sink.js';
import { encodedBelow, pathSegments } from './url-segments.js';

export const usage = `Usage: agentbox snapshot cat SNAPSHOT PATH

Write file PATH of snapshot SNAPSHOT (relative to the working directory it was taken of) to standard
output, read from the store: no agent is forked. What a file held before an agent changed it:
  agentbox snapshot cat snp_… src/app.ts > app.ts.before
A directory is listed with agentbox snapshot files; a link is refused (never followed).

Options:
${targetHelp
  .split('\n')
  .filter((l) => !l.includes('--json'))
  .join('\n')}
  -h, --help       show this help

Exit codes: 0 written, 1 refused (an unknown snapshot, no such file, a directory or link) or unreachable, 2 bad usage.`;

/**
 * The URL path of `relative` in snapshot `sid`'s files. A `..` in it, or a `.`/`..` id, is refused
 * here (exit 2, nothing sent): fetch would resolve it, and the request reach another route.
 */
export function snapshotPathUrl(sid: string, relative: string, query = ''): string {
  const segments = pathSegments(relative, `${sid}:${relative}`, 2);
  // A trailing / is kept: it names a directory, and the box refuses it on a file (409) rather than reading the file.
  const slash = segments.length > 0 && relative.endsWith('/') ? '/' : '';
  return `${rootPath({ snapshot: sid })}${encodedBelow(segments)}${slash}${query}`;
}

export async function run(args: string[]): Promise<number> {
  const { url, manifest, root } = targetOptions;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { url, manifest, root } });
  if (positionals.length !== 2) throw new UsageError('give a snapshot and a file in it: agentbox snapshot cat SNAPSHOT PATH');
  const [sid, relative] = positionals as [string, string];
  const pathname = snapshotPathUrl(sid, relative);
  const target = await resolveTarget(values);
  const res = await send(target, 'GET', target.url + pathname);
  if (!res.ok || !res.body) throw await refused(`reading ${relative} in ${sid}`, res);
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  let cut: Error | undefined;
  body.once('error', (err) => (cut = err));
  await pipeline(body, stdoutSink).catch((err: unknown) => {
    throw cut ? cutOff(`${sid}:${relative}`, cut, 'what was written to stdout is incomplete', FILE_CUT_REASONS) : err;
  });
  return 0;
}
