// The event log's checkpoint and proofs on a real box: authenticated routes, a signed note that
// verifies with the verifier key /v1/meta publishes, checkpoints at the [audit] interval and at
// shutdown, inclusion and consistency proofs that verify against them, and the OpenAPI document.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseCheckpoint } from '../../management-api/src/tlog/checkpoint.js';
import { openNote, parseVerifierKey } from '../../management-api/src/tlog/signed-note.js';
import { verifyConsistency, verifyInclusion } from '../../management-api/src/tlog/proof-verify.js';
import { startTestServer, waitFor } from './support/harness.js';

const toml = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n\n[audit]\ncheckpoint_interval_sec = 1\n';
const b64 = (s: string): Buffer => Buffer.from(s, 'base64');

t.test('checkpoint and proofs over HTTP, a checkpoint at the interval and at shutdown', async (t) => {
  const box = await startTestServer({ toml });
  t.teardown(() => box.close());
  const note = async (): Promise<string> =>
    (await fetch(`${box.server.apiUrl}/v1/events/checkpoint`, { headers: { authorization: `Bearer ${box.key}` } })).text();

  const anonymous = await fetch(`${box.server.apiUrl}/v1/events/checkpoint`);
  t.equal(anonymous.status, 401, 'the checkpoint route is authenticated');
  t.equal((await box.api('/v1/events/proof/inclusion?index=0', { auth: false })).status, 401);
  t.equal((await box.api('/v1/events/proof/consistency?from=1', { auth: false })).status, 401);

  const meta = (await box.api('/v1/meta')).json as { eventLog: { origin: string; verifierKey: string } };
  t.match(meta.eventLog, { origin: /^agentbox\/log\/[0-9a-f]{16}$/, verifierKey: /^agentbox\/log\/[0-9a-f]{16}\+[0-9a-f]{8}\+/ });
  const verifier = parseVerifierKey(meta.eventLog.verifierKey);
  const res = await fetch(`${box.server.apiUrl}/v1/events/checkpoint`, { headers: { authorization: `Bearer ${box.key}` } });
  t.match(res.headers.get('content-type'), /^text\/plain/);
  const first = parseCheckpoint(openNote(await res.text(), verifier));
  t.equal(first.origin, meta.eventLog.origin);

  for (let i = 0; i < 20; i++) t.equal((await box.api('/v1/events', { body: { kind: 'test.audit', data: { i } } })).status, 201);
  const grown = await waitFor('a checkpoint covering the appends', async () => {
    const c = parseCheckpoint(openNote(await note(), verifier));
    return c.size >= first.size + 20 ? c : undefined;
  });
  const inclusion = (await box.api(`/v1/events/proof/inclusion?index=${grown.size - 1}&size=${grown.size}`)).json as { leafHash: string; path: string[] };
  verifyInclusion(grown.size - 1, grown.size, b64(inclusion.leafHash), inclusion.path.map(b64), grown.root);
  const dir = path.join(box.paths.stateDir, 'events');
  const lastLine = (await readFile(path.join(dir, 'events-000001.jsonl'), 'utf8')).trimEnd().split('\n').pop()!;
  t.match(lastLine, /"i":19/, 'the last entry is the last append');
  if (first.size > 0) {
    const consistency = (await box.api(`/v1/events/proof/consistency?from=${first.size}&to=${grown.size}`)).json as { path: string[] };
    verifyConsistency(first.size, grown.size, first.root, grown.root, consistency.path.map(b64));
  }
  const consistency = (await box.api(`/v1/events/proof/consistency?from=1`)).json as { to: number; path: string[] };
  t.equal(consistency.to, grown.size, 'to defaults to the latest checkpoint');
  const bad = await box.api(`/v1/events/proof/inclusion?index=${grown.size + 5}`);
  t.equal(bad.status, 400, 'an index past the checkpoint');
  t.match(bad.json, { error: 'ABX_ERR_VALIDATION' });

  const doc = (await box.api('/docs/json')).json as { paths: Record<string, unknown> };
  for (const route of ['/v1/events/checkpoint', '/v1/events/proof/inclusion', '/v1/events/proof/consistency'])
    t.ok(doc.paths[route], `${route} in the OpenAPI document`);

  // One more append, then stop well before the next interval: the shutdown signs it.
  t.equal((await box.api('/v1/events', { body: { kind: 'test.audit', data: { last: true } } })).status, 201);
  const size = parseCheckpoint(openNote(await note(), verifier)).size;
  const history = path.join(dir, 'tlog/checkpoints.jsonl');
  const copy = await readFile(path.join(dir, 'tlog/checkpoint'), 'utf8').catch(() => '');
  await box.server.close();
  const atShutdown = parseCheckpoint(openNote(await readFile(path.join(dir, 'tlog/checkpoint'), 'utf8'), verifier));
  t.ok(atShutdown.size >= size, 'the shutdown checkpoint covers every append');
  t.equal(atShutdown.size, grown.size + 1, 'exactly the appends made');
  t.ok(copy.length > 0);
  const lines = (await readFile(history, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { size: number });
  t.equal(lines[lines.length - 1]!.size, atShutdown.size, 'the history ends with the shutdown checkpoint');
});

t.test('a sink that keeps no tree answers 404 and /v1/meta has no eventLog', async (t) => {
  const box = await startTestServer({});
  t.teardown(() => box.close());
  t.notOk('eventLog' in (await box.api('/v1/meta')).json);
  const off = await box.api('/v1/events/proof/consistency?from=1');
  t.equal(off.status, 503, 'events off: the slot is off');
});

t.test('POST /v1/events/checkpoint signs one now, covering every append, and only when the log grew', async (t) => {
  // An interval far longer than the test: only the POST (or the start) signs.
  const box = await startTestServer({ toml: toml.replace('checkpoint_interval_sec = 1', 'checkpoint_interval_sec = 3600') });
  t.teardown(() => box.close());
  const verifier = parseVerifierKey(((await box.api('/v1/meta')).json as { eventLog: { verifierKey: string } }).eventLog.verifierKey);
  const sign = () => fetch(`${box.server.apiUrl}/v1/events/checkpoint`, { method: 'POST', headers: { authorization: `Bearer ${box.key}` } });
  const latest = async () =>
    parseCheckpoint(
      openNote(await (await fetch(`${box.server.apiUrl}/v1/events/checkpoint`, { headers: { authorization: `Bearer ${box.key}` } })).text(), verifier),
    );

  t.equal((await fetch(`${box.server.apiUrl}/v1/events/checkpoint`, { method: 'POST' })).status, 401, 'authenticated');
  const before = await latest();
  for (let i = 0; i < 7; i++) t.equal((await box.api('/v1/events', { body: { kind: 'test.audit', data: { i } } })).status, 201);
  t.equal((await latest()).size, before.size, 'no checkpoint covers the appends yet');

  const res = await sign();
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain/);
  const signed = parseCheckpoint(openNote(await res.text(), verifier));
  t.equal(signed.size, before.size + 7, 'the answer covers every append');
  t.same(await latest(), signed, 'and is the latest checkpoint');

  const history = path.join(box.paths.stateDir, 'events/tlog/checkpoints.jsonl');
  const lines = (await readFile(history, 'utf8')).trim().split('\n').length;
  const again = parseCheckpoint(openNote(await (await sign()).text(), verifier));
  t.same(again, signed, 'nothing appended since: the same checkpoint');
  t.equal((await readFile(history, 'utf8')).trim().split('\n').length, lines, 'and none signed');
});
