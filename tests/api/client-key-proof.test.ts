// The client's keyProof asks without the credential and follows no redirect: it is how a caller learns
// whether the box at a URL holds the key before sending the key there. Against a real box, through
// listeners that note every request's Authorization header and pass it on or point elsewhere.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keyProof } from '../../management-api/src/auth/key-proof.js';
import { Agentbox, AgentboxError } from '../../management-api/src/client/index.js';
import { startTestServer } from './support/harness.js';

const box = await startTestServer();
t.teardown(() => box.close());

/** A listener that notes each request (path and Authorization) and answers with `answer`. */
async function listener(answer: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>) {
  const seen: { path: string; authorization?: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: (req.url ?? '').split('?')[0]!, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    void answer(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

t.test('the proof is asked without the key, by the method and by call()', async (t) => {
  // Passes each request on to the box, as a box behind a proxy is reached.
  const relay = await listener(async (req, res) => {
    const answer = await fetch(`${box.server.apiUrl}${req.url}`, { headers: req.headers.authorization ? { authorization: req.headers.authorization } : {} });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
  });
  const c = new Agentbox({ url: relay.url, auth: { apiKey: box.key } });
  const challenge = randomBytes(32).toString('hex');
  t.equal((await c.keyProof(challenge)).proof, keyProof(box.key, challenge), 'the box proves it holds the key');
  t.equal((await c.call('GET /v1/auth/key-proof', { query: { challenge } })).proof, keyProof(box.key, challenge));
  t.match(await c.meta(), { version: String }, 'other routes carry the key');
  t.same(
    relay.seen,
    [{ path: '/v1/auth/key-proof' }, { path: '/v1/auth/key-proof' }, { path: '/v1/meta', authorization: `Bearer ${box.key}` }],
    'only the proof went without it',
  );
});

t.test("a redirect to the key's box is an error, never followed: that proof says nothing of the URL asked", async (t) => {
  const redirector = await listener((req, res) => void res.writeHead(307, { location: `${box.server.apiUrl}${req.url}` }).end());
  const c = new Agentbox({ url: redirector.url, auth: { apiKey: box.key } });
  const err = await c.keyProof(randomBytes(32).toString('hex')).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof AgentboxError, String(err));
  t.equal((err as AgentboxError).status, 307);
  t.same(redirector.seen, [{ path: '/v1/auth/key-proof' }], 'asked once, without the key');
});

t.test('no call that carries the credential follows a redirect, not even to its own origin', async (t) => {
  const front = await listener((req, res) => void res.writeHead(307, { location: `/moved${req.url}` }).end());
  const c = new Agentbox({ url: front.url, auth: { apiKey: box.key } });
  for (const call of [() => c.meta(), () => c.agents.list(), () => c.call('POST /v1/events/checkpoint', {})]) {
    const err = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof AgentboxError, String(err));
    t.match(err, {
      code: 'ABX_CLIENT_REDIRECT',
      status: 307,
      message: /answered with a redirect \(HTTP 307 to "\/moved\/v1\/.*"\), which the client never follows/,
    });
  }
  t.same(
    front.seen.filter((s) => s.path.startsWith('/moved')),
    [],
    'never followed: the key went only to the URL it was given',
  );
  t.equal(front.seen.length, 3);
});
