// beads/external-http through the resolver, against a second real Agentbox API serving /v1/beads
// from local-sqlite: the beads contract, and what only a remote client has (tokens, wrong services).
import t from 'tap';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpBeads } from '../../management-api/src/adapters/beads/external-http.js';
import { beadsContract } from './beads.contract.js';
import { clientManifest, removeBox, startBeadsBox, type BeadsBox } from './beads-remote-box.js';
import { startSlot } from './pods-harness.js';

let box: BeadsBox;
t.before(async () => {
  box = await startBeadsBox();
});
t.teardown(async () => {
  await box.stop();
  removeBox(box);
});

t.test('contract (token from a 0600 file)', async (t) => {
  beadsContract(t, () => startSlot('beads', clientManifest(box.url, { file: box.keyFile })));
});

t.test('the remote box holds the data: what the client writes, the box serves to anyone with its key', async (t) => {
  const h = await startSlot('beads', clientManifest(box.url, { env: 'BEADS_TOKEN' }), { env: { BEADS_TOKEN: box.key } });
  t.teardown(() => h.close());
  const bead = await h.ops.create({ title: 'shared between boxes' });
  const res = await fetch(`${box.url}/v1/beads/${bead.id}`, { headers: { authorization: `Bearer ${box.key}` } });
  t.equal(res.status, 200);
  t.same(((await res.json()) as { bead: unknown }).bead, bead, 'the token from token_env works the same');
});

t.test('a wrong token leaves the slot degraded with a reason that names the fix, never the token', async (t) => {
  const secret = 'wrong-token-7f3a9c1e5b2d4f60a8c7e6d5';
  const h = await startSlot('beads', clientManifest(box.url, { env: 'BEADS_TOKEN' }), {
    env: { BEADS_TOKEN: secret },
    timing: { reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 },
  });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /401.*token_env/);
  t.notMatch(h.reason(), secret);
  await t.rejects(h.ops.list({}), { code: 'ABX_ERR_ADAPTER_DEGRADED' });
});

t.test('a token_env naming an unset variable, or an unreadable token_file, is a clear connect failure', async (t) => {
  const timing = { reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 };
  const unset = await startSlot('beads', clientManifest(box.url, { env: 'BEADS_TOKEN_UNSET' }), { env: {}, timing });
  t.teardown(() => unset.close());
  t.equal(unset.state(), 'degraded');
  t.match(unset.reason(), /BEADS_TOKEN_UNSET, which is not set/);
  const missing = await startSlot('beads', clientManifest(box.url, { file: '/nonexistent/token' }), { timing });
  t.teardown(() => missing.close());
  t.match(missing.reason(), /token_file \/nonexistent\/token cannot be read: ENOENT/);
});

t.test('a token file readable by others still works but is reported', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'token');
  writeFileSync(file, `${box.key}\n`);
  chmodSync(file, 0o644);
  const warnings: string[] = [];
  const client = new HttpBeads({
    url: box.url,
    token: { token_env: '', token_file: file },
    env: {},
    logger: { warn: (o: { event: string }) => warnings.push(o.event) } as never,
  });
  await client.connect(AbortSignal.timeout(5_000));
  t.same(warnings, ['IntegrationTokenFileOpen']);
  t.same((await client.list({ limit: 1 })).items.length <= 1, true);
});

t.test('a service that is not an Agentbox beads API is unavailable, not a missing bead', async (t) => {
  const other = createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/v1/beads?') ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url?.startsWith('/v1/beads?') ? '{"items":[]}' : JSON.stringify({ error: 'ABX_ERR_NOT_FOUND', message: `no route GET ${req.url}` }));
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => other.close(resolve)));
  const client = new HttpBeads({ url: `http://127.0.0.1:${(other.address() as { port: number }).port}`, token: { token_env: '', token_file: '' }, env: {} });
  await client.connect(AbortSignal.timeout(5_000));
  await t.rejects(client.get('bd-1'), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /no route/ });
});

t.test('a service that answers too slowly is a timeout', async (t) => {
  const slow = createServer(() => undefined);
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    slow.closeAllConnections();
    return new Promise((resolve) => slow.close(resolve));
  });
  const client = new HttpBeads({
    url: `http://127.0.0.1:${(slow.address() as { port: number }).port}`,
    token: { token_env: '', token_file: '' },
    env: {},
    timeoutMs: 200,
  });
  await t.rejects(client.connect(AbortSignal.timeout(5_000)), { code: 'ABX_ERR_ADAPTER_TIMEOUT' });
});
