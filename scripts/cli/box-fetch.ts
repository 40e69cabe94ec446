// Every request a command sends to a box with its API key goes through here: the key as a bearer
// token, and a redirect never followed. The key proof (key-proof-check.ts) showed that the box at
// the URL holds the key; fetch would carry the key on to wherever a same-origin redirect points,
// which the proof did not cover (a name that rebinds to another address, a proxy in front of the
// box). The box's own API routes never redirect, so one that does is not the box's answer.
import { UserError } from './cli-errors.js';

/** A box's answer that was a redirect: not followed, so the key went nowhere else. Exit 1. */
export class RedirectRefused extends UserError {
  constructor(url: string, status: number, location: string | null) {
    super(
      `${url} answered with a redirect (HTTP ${status}${location ? ` to ${JSON.stringify(location.slice(0, 200))}` : ''}), which a request carrying the API key never follows: the box's API routes do not redirect, so whatever answered is not the box, or sits in front of it. Pass the box's own URL as --url`,
      1,
    );
  }
}

/**
 * fetch `url` with `key` (when there is one) as `authorization: Bearer`, redirects refused with
 * RedirectRefused. Network failures reject as fetch's do; the caller names them.
 */
export async function boxFetch(url: string, key: string | undefined, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    throw new RedirectRefused(url, res.status, res.headers.get('location'));
  }
  return res;
}
