// The files API as `agentbox cp` calls it: URLs of workspace paths, streamed requests, what a remote path is.
import type { Readable } from 'node:stream';
import type { BoxTarget } from './box-target.js';
import { UserError } from './cli-errors.js';
import { encodedBelow, idSegment, snapshotId } from './url-segments.js';
import { boxFetch } from './box-fetch.js';

/** Where a copy's remote side is served: an agent's workspace, or a snapshot's files (read only: the same listing, file and tar answers). */
export type FilesRoot = { agent: string } | { snapshot: string };

/** The URL path of a files root. */
export const rootPath = (files: FilesRoot): string =>
  'snapshot' in files ? `/v1/snapshots/${snapshotId(files.snapshot)}/files` : `/v1/agents/${idSegment(files.agent, 'an agent id')}/files`;

/** The URL of `segments` under `files`; each segment percent-encoded, so a name is never read as URL syntax. */
export function filesUrl(target: BoxTarget, files: FilesRoot, segments: readonly string[], query = ''): string {
  return `${target.url}${rootPath(files)}${encodedBelow(segments)}${query}`;
}

/** A request with the box's key; a body stream is sent as it is read. Unreachable: exit 1. */
export async function send(target: BoxTarget, method: string, url: string, body?: Readable, headers: Record<string, string> = {}): Promise<Response> {
  return boxFetch(
    url,
    target.key,
    {
      method,
      headers,
      // undici reads a Node stream as an async iterable; `duplex` is required for a streamed body.
      ...(body ? { body: body as unknown as RequestInit['body'], duplex: 'half' } : {}),
    } as RequestInit,
    { where: target.url, hint: 'Is the box running?' },
  );
}

/** The box's refusal of `what` as a user error (exit 1), naming its code. */
export async function refused(what: string, res: Response): Promise<UserError> {
  const text = await res.text().catch(() => '');
  let error: string | undefined;
  let message = text;
  try {
    ({ error, message = text } = JSON.parse(text) as { error?: string; message?: string });
  } catch {
    // Not JSON: the text as it came.
  }
  if (res.status === 404 && error === 'ABX_ERR_NOT_FOUND') return new UserError(`${what}: no such path (${message})`, 1);
  return new UserError(`${what}: ${res.status}${error ? ` ${error}` : ''}: ${message}`, 1);
}

/** What a workspace or snapshot path is: a directory, a file (or other entry that is not one), or nothing (the box's words why). */
export async function remoteKind(
  target: BoxTarget,
  files: FilesRoot,
  segments: readonly string[],
  shown: string,
): Promise<{ kind: 'dir' | 'other' } | { kind: 'missing'; why: string }> {
  const res = await send(target, 'GET', filesUrl(target, files, segments, '?list'));
  if (res.ok) {
    await res.body?.cancel();
    return { kind: 'dir' };
  }
  const body = (await res
    .clone()
    .json()
    .catch(() => ({}))) as { error?: string; message?: string };
  if (res.status === 409 && body.error === 'ABX_ERR_FILE_TYPE') {
    await res.body?.cancel();
    return { kind: 'other' };
  }
  if (res.status === 404 && body.error === 'ABX_ERR_NOT_FOUND') {
    await res.body?.cancel();
    // No such path, or (a snapshot's id in place of an agent) no such snapshot: the box says which.
    return { kind: 'missing', why: body.message ?? 'not found' };
  }
  throw await refused(shown, res);
}
