// pods/external-solid through the resolver against a real Community Solid Server (started once for this file).
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { podsContract } from './pods.contract.js';
import { MESH_CLIENT, onlySlot, startSlot } from './pods-harness.js';
import { startSolidServer, type SolidServer } from './pods-solid-server.js';

let server: SolidServer | undefined;
t.before(async () => {
  server = await startSolidServer();
});
t.teardown(async () => server?.stop());

const manifest = (url: string, integration = '') => onlySlot('pods', 'external-solid', `${MESH_CLIENT}[integrations.pods]\nurl = "${url}"\n${integration}`);
const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

t.test('contract', async (t) => {
  podsContract(t, () => startSlot('pods', manifest(server!.url)));
});

t.test('the data is on the Solid server, reachable over plain LDP', async (t) => {
  const h = await startSlot('pods', manifest(server!.url));
  t.teardown(() => h.close());
  const { etag } = await h.ops.put('/ldp/visible.txt', text('on the server'), { contentType: 'text/plain' });
  const direct = await fetch(new URL('ldp/visible.txt', server!.url));
  t.equal(await direct.text(), 'on the server');
  t.equal(direct.headers.get('etag'), etag, "the ETag is the server's own");
  t.match(direct.headers.get('link') ?? '', /ldp#Resource/);
});

t.test('Solid auxiliary resources (.acl, .meta) are not reachable through the slot', async (t) => {
  const h = await startSlot('pods', manifest(server!.url));
  t.teardown(() => h.close());
  await t.rejects(h.ops.put('/.acl', text('@prefix acl: <http://www.w3.org/ns/auth/acl#>.'), { contentType: 'text/turtle' }), {
    code: 'ABX_ERR_VALIDATION',
    message: /auxiliary/,
  });
  await t.rejects(h.ops.get('/x/doc.meta'), { code: 'ABX_ERR_VALIDATION' });
});

t.test('a bearer token from token_file is sent, and never shows in errors', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const tokenFile = path.join(dir, 'token');
  writeFileSync(tokenFile, 'sekret-token-value-123\n', { mode: 0o600 });
  const h = await startSlot('pods', manifest(server!.url, `token_file = "${tokenFile}"\n`));
  t.teardown(() => h.close());
  // The open test server ignores the token; what matters is that it is accepted and never echoed.
  await h.ops.put('/tok/a.txt', text('a'), { contentType: 'text/plain' });
  const err = await h.ops.get('/tok/missing.txt').catch((e: unknown) => e as Error);
  t.match(err, { code: 'ABX_ERR_NOT_FOUND' });
  t.notMatch(String((err as Error).message), /sekret/);
});

t.test('a token_env naming an unset variable fails the connect with a clear reason', async (t) => {
  const h = await startSlot('pods', manifest(server!.url, 'token_env = "AGENTBOX_TEST_UNSET_POD_TOKEN"\n'), {
    timing: { reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 },
  });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /AGENTBOX_TEST_UNSET_POD_TOKEN.*not set/);
  await t.rejects(h.ops.get('/x'), { code: 'ABX_ERR_ADAPTER_DEGRADED' });
});

t.test('a URL that is not a Solid server is refused at connect', async (t) => {
  const h = await startSlot('pods', manifest(new URL('.well-known/solid', server!.url).href), {
    timing: { reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 },
  });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /connect-failed/);
});
