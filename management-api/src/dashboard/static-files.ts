// Serves the dashboard's built files (dist/ui) under /ui/ with the security headers; reads only, so a read-only root is fine.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { ErrorBody } from '../errors.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';

/** The Content-Security-Policy of every /ui/ response: nothing inline, nothing from elsewhere. */
export const UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Headers every /ui/ response carries. */
export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': UI_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** Content-hashed bundle files never change under their name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Where `dist/ui` is at run time, found from this module's own location: bundled, it runs from
 * `<app>/dist/box/` (the image copies `dist/`), compiled from `<app>/dist/management-api/src/dashboard/`; from source (tests), from
 * `<repo>/management-api/src/dashboard/`, whose build output is `<repo>/dist/ui`.
 */
export function defaultUiRoot(moduleUrl: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (path.basename(dir) === 'dist') return path.join(dir, 'ui');
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'ui');
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(path.dirname(fileURLToPath(moduleUrl)), '../../../ui');
    dir = parent;
  }
}

/**
 * Register GET /ui (308 to /ui/), /ui/ (index.html, no-store) and /ui/* (the bundle; assets are
 * immutable) without authentication: the files hold nothing secret. Without a built index.html
 * every /ui/ URL answers 503 saying how to build it. Unknown files get the uniform 404 body.
 */
export async function registerStaticFiles(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = path.resolve(options.root ?? defaultUiRoot());
  const built = existsSync(path.join(root, 'index.html'));
  if (!built)
    app.log.warn(
      { event: 'DashboardNotBuilt', root },
      `the dashboard is not built (${root}/index.html is missing): /ui/ answers 503 until \`npm run build\` has run`,
    );

  await app.register(
    async (ui) => {
      // Every /ui/ answer, the 404s and 503s included, carries the headers.
      ui.addHook('onRequest', async (request, reply) => {
        void reply.headers(UI_SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id);
      });
      ui.setNotFoundHandler((request, reply) => {
        const body: ErrorBody = { error: 'ABX_ERR_NOT_FOUND', message: `no dashboard file ${request.url.split('?')[0] ?? ''}` };
        void reply.code(404).header('cache-control', 'no-store').send(body);
      });
      // Served through reply.sendFile only (no routes of the plugin's own): these routes are public to the gate.
      await ui.register(fastifyStatic, { root, serve: false, decorateReply: true });
      const route = { config: { public: true }, schema: { hide: true } } as const;
      const notBuilt = (reply: FastifyReply) =>
        reply
          .code(503)
          .header('cache-control', 'no-store')
          .type('text/plain; charset=utf-8')
          .send('The dashboard is not built on this box: run `npm run build` (it writes dist/ui), then restart the API.\n');
      const send = (reply: FastifyReply, file: string) => {
        if (!built) return notBuilt(reply);
        void reply.header('cache-control', file.startsWith('assets/') ? IMMUTABLE : 'no-store');
        // cacheControl false: the header set above stays; `send` refuses paths that climb out of root (403).
        return reply.sendFile(file, { cacheControl: false, dotfiles: 'deny' });
      };
      ui.get('', { ...route, prefixTrailingSlash: 'no-slash' }, (_request, reply) => reply.redirect('/ui/', 308));
      ui.get('/', { ...route, prefixTrailingSlash: 'slash' }, (_request, reply) => send(reply, 'index.html'));
      ui.get<{ Params: { '*': string } }>('/*', route, (request, reply) => send(reply, request.params['*'] || 'index.html'));
    },
    { prefix: '/ui' },
  );
}
