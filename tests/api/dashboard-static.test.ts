// The dashboard's files over real HTTP: security headers, caching, the 308, the 503 of an unbuilt tree, no path traversal.
import t, { type Test } from 'tap';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultUiRoot, UI_CSP } from '../../management-api/src/dashboard/static-files.js';
import { startTestServer } from './support/harness.js';
import { makeUiFixture } from './support/dashboard.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** A raw GET (no client-side path normalisation), for traversal attempts. */
function rawGet(base: string, rawPath: string): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    http
      .get({ hostname, port, path: rawPath }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      })
      .on('error', reject);
  });
}

function securityHeaders(t: Test, headers: { get(name: string): string | null }, what: string): void {
  t.equal(headers.get('content-security-policy'), CSP, `${what}: CSP`);
  t.equal(headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  t.equal(headers.get('referrer-policy'), 'no-referrer', `${what}: referrer-policy`);
  t.equal(headers.get('x-frame-options'), 'DENY', `${what}: x-frame-options`);
  t.equal(headers.get('cross-origin-opener-policy'), 'same-origin', `${what}: COOP`);
}

t.test('built files are served without the key, with the security headers and the right caching', async (t) => {
  t.equal(UI_CSP, CSP, "the policy is exactly the contract's");
  const ui = await makeUiFixture();
  const box = await startTestServer({ ui: { root: ui.root } });
  t.teardown(async () => {
    await box.close();
    await ui.cleanup();
  });
  const base = box.server.apiUrl;
  const redirect = await fetch(`${base}/ui`, { redirect: 'manual' });
  t.equal(redirect.status, 308);
  t.equal(redirect.headers.get('location'), '/ui/');
  securityHeaders(t, redirect.headers, '/ui');

  const index = await fetch(`${base}/ui/`);
  t.equal(index.status, 200);
  t.match(index.headers.get('content-type'), /^text\/html/);
  t.equal(index.headers.get('cache-control'), 'no-store');
  t.match(await index.text(), /assets\/app-abc123\.js/);
  securityHeaders(t, index.headers, '/ui/');

  const asset = await fetch(`${base}/ui/assets/app-abc123.js`);
  t.equal(asset.status, 200);
  t.match(asset.headers.get('content-type'), /javascript/);
  t.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  securityHeaders(t, asset.headers, 'asset');

  const missing = await fetch(`${base}/ui/assets/app-nope.js`);
  t.equal(missing.status, 404);
  t.match(await missing.json(), { error: 'ABX_ERR_NOT_FOUND' });
  securityHeaders(t, missing.headers, '404');

  const session = await fetch(`${base}/ui/session`);
  securityHeaders(t, session.headers, '/ui/session');

  for (const attempt of [
    '/ui/../outside-secret.txt',
    '/ui/assets/../../outside-secret.txt',
    '/ui/..%2foutside-secret.txt',
    '/ui/%2e%2e/outside-secret.txt',
    '/ui/assets/..%2f..%2foutside-secret.txt',
    '/ui/assets/%2e%2e%2f%2e%2e%2foutside-secret.txt',
    '/ui/..%5coutside-secret.txt',
  ]) {
    const r = await rawGet(base, attempt);
    t.ok([400, 403, 404].includes(r.status), `${attempt} is refused (${r.status})`);
    t.notMatch(r.body, /not for the web/, `${attempt} does not leak the file`);
  }

  const doc = (await box.api('/docs/json')).json as { paths: Record<string, unknown> };
  t.ok(doc.paths['/v1/dashboard/stream'], 'the stream is in the API document');
  t.same(
    Object.keys(doc.paths).filter((p) => p.startsWith('/ui')),
    [],
    '/ui routes are not',
  );
});

t.test('without a built dashboard /ui/ answers 503 saying how to build it', async (t) => {
  const empty = await mkdtemp(path.join(os.tmpdir(), 'agentbox-ui-empty-'));
  const box = await startTestServer({ ui: { root: empty } });
  t.teardown(async () => {
    await box.close();
    await rm(empty, { recursive: true, force: true });
  });
  for (const p of ['/ui/', '/ui/assets/app.js']) {
    const res = await fetch(box.server.apiUrl + p);
    t.equal(res.status, 503, p);
    t.match(await res.text(), /npm run build/);
    securityHeaders(t, res.headers, p);
  }
  t.match(box.logs.events('DashboardNotBuilt'), [{ root: empty }]);
});

t.test('dist/ui is found from the module location, compiled or from source', async (t) => {
  t.equal(defaultUiRoot(pathToFileURL('/app/dist/management-api/src/dashboard/static-files.js').href), '/app/dist/ui', 'in the image');
  const repo = path.resolve(import.meta.dirname, '../..');
  t.equal(defaultUiRoot(pathToFileURL(path.join(repo, 'management-api/src/dashboard/static-files.ts')).href), path.join(repo, 'dist/ui'), 'from source');
  t.equal(defaultUiRoot(), path.join(repo, 'dist/ui'));
});
