// Every request a command sends to a box with its API key goes through here: the key as a bearer
// token, and a redirect never followed. The key proof (key-proof-check.ts) showed that the box at
// the URL holds the key; fetch would carry the key on to wherever a same-origin redirect points,
// which the proof did not cover (a name that rebinds to another address, a proxy in front of the
// box). The box's own API routes never redirect, so one that does is not the box's answer.
import { UserError } from './cli-errors.js';

/** A box's answer that was a redirect: not followed, so the key went nowhere else. Exit 1. */
export class RedirectRefused extends UserError {
  constructor(url: string, status: number, location: string | null, exitCode = 1) {
    super(
      `${url} answered with a redirect (HTTP ${status}${location ? ` to ${JSON.stringify(location.slice(0, 200))}` : ''}), which a request carrying the API key never follows: the box's API routes do not redirect, so whatever answered is not the box, or sits in front of it. Pass the box's own URL as --url`,
      exitCode,
    );
  }
}

/** How a command reports a box it could not reach: what it tried (default the request's URL), what to do, and its exit code for that and for a redirect (default 1). */
export interface Unreachable {
  where?: string;
  hint?: string;
  exitCode?: number;
}

/** A box that did not answer (refused, unknown name, timed out), naming where and why. */
export class BoxUnreachable extends UserError {
  constructor(where: string, err: unknown, hint: string | undefined, exitCode = 1) {
    const e = err as Error & { cause?: Error };
    super(`cannot reach ${where}: ${e.cause?.message ?? e.message}${hint ? `. ${hint}` : ''}`, exitCode);
  }
}

/**
 * fetch `url` with `key` (when there is one) as `authorization: Bearer`, redirects refused with
 * RedirectRefused, a failure to reach the box with BoxUnreachable. A request the caller itself
 * aborted rejects as fetch's does (an AbortError), so that the caller can tell it from a failure.
 */
export async function boxFetch(url: string, key: string | undefined, init: RequestInit = {}, unreachable: Unreachable = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  const res = await fetch(url, { ...init, headers, redirect: 'manual' }).catch((err: unknown) => {
    if ((err as Error).name === 'AbortError') throw err;
    throw new BoxUnreachable(unreachable.where ?? url, err, unreachable.hint, unreachable.exitCode);
  });
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    throw new RedirectRefused(url, res.status, res.headers.get('location'), unreachable.exitCode);
  }
  return res;
}
