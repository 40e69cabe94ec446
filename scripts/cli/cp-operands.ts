// `agentbox cp` operands: which side is an agent's workspace (AGENT:path), which a local path or `-`.
import { UsageError } from './cli-errors.js';
import { pathSegments } from './url-segments.js';

/**
 * One side of a copy. `contents`: the path ends in `.` (`src/.`, `.`), so a directory's contents
 * are copied into an existing destination directory rather than the directory under its own name
 * (as `cp -r src/. dst` and `docker cp` do). `slash`: the path ends in `/`, so it names a
 * directory, as for cp: a file is copied into it, never made under its name.
 */
export type Operand =
  | { kind: 'remote'; agent: string; segments: string[]; raw: string; contents: boolean; slash: boolean }
  | { kind: 'local'; path: string; contents: boolean; slash: boolean }
  | { kind: 'stdio' };

/**
 * `AGENT:path` is an agent's workspace (the agent by id, id prefix or name; the path relative to
 * its working directory, a leading `/` being that directory); `-` is stdin or stdout; anything else
 * is local. A local path with a colon before its first slash is written `./a:b`, as for scp.
 */
export function parseOperand(arg: string): Operand {
  if (arg === '-') return { kind: 'stdio' };
  const m = /^([^/:.][^/:]*):(.*)$/s.exec(arg);
  if (!m) return { kind: 'local', path: arg, contents: endsInDot(arg), slash: arg.endsWith('/') };
  const [, agent, rest] = m as unknown as [string, string, string];
  // Checked here, before any request: fetch would resolve a ".." in the URL itself. Bad usage (exit 2), as the snapshot commands say it.
  return { kind: 'remote', agent, segments: pathSegments(rest, arg, 2), raw: rest, contents: endsInDot(rest), slash: rest.endsWith('/') };
}

/** Whether the path's last segment is `.` (a trailing slash after it aside): its directory's contents. */
function endsInDot(p: string): boolean {
  return p.replace(/\/+$/, '').split('/').at(-1) === '.';
}

/** The two operands, exactly one of them remote. */
export function parseOperands(src: string | undefined, dst: string | undefined): { src: Operand; dst: Operand } {
  if (src === undefined || dst === undefined) throw new UsageError('give a source and a destination');
  // An empty operand (an unset shell variable) names nothing: said before any request, not as a missing file.
  if (src === '' || dst === '')
    throw new UsageError(`the ${src === '' ? 'source' : 'destination'} is empty; name a path (. for the current directory, AGENT: for a workspace)`);
  const s = parseOperand(src);
  const d = parseOperand(dst);
  if ((s.kind === 'remote') === (d.kind === 'remote')) throw new UsageError('exactly one side is AGENT:PATH (the other a local path or -)');
  return { src: s, dst: d };
}
