// Dashboard test helpers: a dist/ui-shaped fixture, sign-in with the right Origin, and an SSE reader over real HTTP.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { TestServer } from './harness.js';

/** A tiny built dashboard: index.html and one hashed asset, plus a file beside the root that must never be served. */
export async function makeUiFixture(): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentbox-ui-'));
  const root = path.join(dir, 'ui');
  await mkdir(path.join(root, 'assets'), { recursive: true });
  await writeFile(path.join(root, 'index.html'), '<!doctype html><title>Agentbox</title><script type="module" src="assets/app-abc123.js"></script>\n');
  await writeFile(path.join(root, 'assets', 'app-abc123.js'), 'console.log("dashboard");\n');
  await writeFile(path.join(dir, 'outside-secret.txt'), 'not for the web\n');
  return { root, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A signed-in browser: its cookie, CSRF token and Origin. */
export interface Browser {
  cookie: string;
  csrfToken: string;
  origin: string;
  setCookie: string;
  body: Record<string, unknown>;
}

/** POST /ui/session with the key, as the page does (Origin of the box). */
export async function signIn(box: TestServer): Promise<Browser> {
  const origin = new URL(box.server.apiUrl).origin;
  const res = await fetch(`${box.server.apiUrl}/ui/session`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: box.key }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(body)}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, csrfToken: body['csrfToken'] as string, origin, setCookie, body };
}

/** fetch with the browser's cookie (and, when `csrf`, its Origin and token) and no Authorization header. */
export async function asBrowser(
  box: TestServer,
  b: Browser,
  pathname: string,
  init: { method?: string; body?: unknown; csrf?: boolean; origin?: string; token?: string } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { cookie: b.cookie };
  if (init.csrf !== false && (init.method ?? 'GET') !== 'GET') {
    headers['origin'] = init.origin ?? b.origin;
    headers['x-csrf-token'] = init.token ?? b.csrfToken;
  }
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(box.server.apiUrl + pathname, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** One SSE message. */
export interface SseMessage {
  event: string;
  data: string;
}

/** An open SSE connection: every message so far, a wait for one matching, and close. */
export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  messages: SseMessage[];
  /** Raw text received (comments included). */
  raw(): string;
  next(match: (m: SseMessage) => boolean, ms?: number): Promise<SseMessage>;
  ended: Promise<void>;
  close(): void;
}

/** Open `pathname` as an event stream with `headers`, over a plain http request (no client-side reconnects). */
export function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const messages: SseMessage[] = [];
      const waiters: Array<() => void> = [];
      let buffer = '';
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) messages.push({ event, data: data.join('\n') });
        }
        for (const w of waiters.splice(0)) w();
      });
      const ended = new Promise<void>((done) => res.on('close', () => done()));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        raw: () => raw,
        ended,
        close: () => req.destroy(),
        next(match, ms = 5_000) {
          let seen = 0;
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no matching SSE message within ${ms} ms; got ${messages.map((m) => m.event).join(',')}`)), ms);
            const check = (): void => {
              for (; seen < messages.length; seen++) {
                if (match(messages[seen]!)) {
                  clearTimeout(timer);
                  ok(messages[seen]!);
                  return;
                }
              }
              waiters.push(check);
            };
            check();
          });
        },
      });
    });
    req.on('error', reject);
  });
}
