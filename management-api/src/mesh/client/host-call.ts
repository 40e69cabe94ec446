// One NIP-98 signed JSON call of a mesh client to its host, with a deadline; never throws for an answer, only reports it.
import type { BoxIdentity } from '../identity.js';
import { nip98Header } from '../nip98.js';

/** The host's answer, or why there was none. */
export type HostAnswer = { status: number; json: Record<string, unknown>; error?: undefined } | { status: 0; json?: undefined; error: string };

/**
 * `method url` with `body` as JSON, signed by `identity` (exact URL, method, sha256 of the body
 * bytes sent). Resolves with status 0 and the reason when the host cannot be reached, does not
 * answer within `timeoutMs`, or `signal` aborts.
 */
export async function hostCall(
  identity: BoxIdentity,
  method: 'POST' | 'DELETE',
  url: string,
  body: unknown,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<HostAnswer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { authorization: await nip98Header(identity, url, method, text) };
  if (text !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(url, {
      method,
      headers,
      ...(text !== undefined ? { body: text } : {}),
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      redirect: 'error',
    });
    const raw = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      json = { message: raw.slice(0, 200) };
    }
    return { status: res.status, json };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const reason =
      e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : e.name === 'AbortError' ? 'aborted' : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { status: 0, error: `${method} ${url}: ${reason}` };
  }
}
