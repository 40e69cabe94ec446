// A command sends an API key only to a box that proves it holds that key already: real boxes, and an
// impostor listener (plain HTTP) that answers in each way a wrong party could.
import t from 'tap';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keyProof } from '../../../management-api/src/auth/key-proof.js';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { ALL_OFF, startTestServer } from '../../api/support/harness.js';

const work = await mkdtemp(path.join(tmpdir(), 'agentbox-cli-proof-'));
t.teardown(() => rm(work, { recursive: true, force: true }));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));

// The key's box keeps an event log, so that events verify --remote has a checkpoint to hold it to.
const mine = await startTestServer({ toml: ALL_OFF.replace('events = "off"', 'events = "local-jsonl"') });
t.teardown(() => mine.close());
const other = await startTestServer();
t.teardown(() => other.close());
/** A command that needs the key (approvals are served with every slot off). */
const authenticated = (url: string, root: string) => runAgentboxAsync(['approvals', '--json', '--url', url, '--root', root], { cwd: work, env });

/** An HTTP listener that records what reached it and answers `GET /v1/auth/key-proof` with `answer`. */
async function impostor(answer: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>) {
  const seen: { url: string; authorization?: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (req.url?.startsWith('/v1/auth/key-proof')) void answer(req, res);
    else res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const challengeOf = (req: IncomingMessage) => new URL(req.url ?? '', 'http://x').searchParams.get('challenge') ?? '';

t.test('the box that holds the key proves it and the command goes on (its key is accepted)', async (t) => {
  const r = await authenticated(mine.server.apiUrl, mine.paths.root);
  t.equal(r.code, 0, r.stderr);
  t.same(JSON.parse(r.stdout), []);
});

t.test('the route answers the HMAC of the challenge under a key derived from the API key, and refuses a malformed challenge', async (t) => {
  const challenge = 'ab'.repeat(32);
  const res = await fetch(`${mine.server.apiUrl}/v1/auth/key-proof?challenge=${challenge}`);
  t.equal(res.status, 200);
  const { proof } = (await res.json()) as { proof: string };
  t.equal(proof, keyProof(mine.key, challenge));
  t.not(proof, keyProof(other.key, challenge), 'another key answers otherwise');
  t.not(keyProof(mine.key, 'cd'.repeat(32)), proof, 'another challenge answers otherwise');
  for (const bad of ['', 'AB'.repeat(32), 'ab'.repeat(31), `${'ab'.repeat(32)}00`]) {
    const refused = await fetch(`${mine.server.apiUrl}/v1/auth/key-proof?challenge=${bad}`);
    t.equal(refused.status, 400, `challenge ${JSON.stringify(bad)}`);
  }
});

t.test("another box at the URL: refused, naming the key file, and that box never sees this root's key", async (t) => {
  const relay = await impostor(async (req, res) => {
    // An impostor that passes the challenge on to a real box answers with that box's proof.
    const proof = await fetch(`${other.server.apiUrl}${req.url}`);
    res.writeHead(proof.status, { 'content-type': 'application/json' }).end(await proof.text());
  });
  for (const url of [other.server.apiUrl, relay.url]) {
    const r = await authenticated(url, mine.paths.root);
    t.equal(r.code, 1, r.stderr);
    t.match(r.stderr, `the API key in ${mine.paths.apiKeyFile} was not sent to ${url}`);
    t.match(r.stderr, /is not that of this key: it is another box, or not a box/);
  }
  t.notOk(
    relay.seen.some((s) => s.authorization),
    'no request to the impostor carried a key',
  );
  t.equal(relay.seen.length, 1, 'it was asked for a proof only');
});

t.test('whatever else answers there is refused before any key is sent', async (t) => {
  const old = 'cd'.repeat(32);
  const answers: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp][] = [
    ['no such route', (_q, res) => res.writeHead(404).end('{}'), /did not answer the key proof \(HTTP 404/],
    ['a replayed proof of this very key', (_q, res) => json(res, { proof: keyProof(mine.key, old) }), /is not that of this key/],
    ['its challenge echoed', (req, res) => json(res, { proof: challengeOf(req) }), /is not that of this key/],
    ['not JSON', (_q, res) => res.writeHead(200).end('<html>'), /is not that of this key/],
    ['an endless answer', (_q, res) => res.writeHead(200).end(Buffer.alloc(1 << 20, 0x20)), /is not that of this key/],
  ];
  for (const [what, answer, reason] of answers) {
    const fake = await impostor(answer);
    const r = await authenticated(fake.url, mine.paths.root);
    t.equal(r.code, 1, `${what}: ${r.stderr}`);
    t.match(r.stderr, reason, what);
    t.notOk(
      fake.seen.some((s) => s.authorization),
      `${what}: no key sent`,
    );
  }
});

t.test("a redirect to the key's own box is not followed: the proof came from there, the key would have gone here", async (t) => {
  for (const status of [301, 302, 303, 307, 308]) {
    // The key's box answers the challenge it is sent on to; the listener that sent it on would get the key.
    const redirector = await impostor((req, res) => void res.writeHead(status, { location: `${mine.server.apiUrl}${req.url}` }).end());
    const r = await authenticated(redirector.url, mine.paths.root);
    t.equal(r.code, 1, `${status}: ${r.stderr}`);
    t.match(
      r.stderr,
      `the API key in ${mine.paths.apiKeyFile} was not sent to ${redirector.url}: it answered the key proof with a redirect (HTTP ${status} to "${mine.server.apiUrl}/v1/auth/key-proof?challenge=`,
    );
    t.notOk(
      redirector.seen.some((s) => s.authorization),
      `${status}: no key sent`,
    );
    t.same(
      redirector.seen.map((s) => s.url.split('?')[0]),
      ['/v1/auth/key-proof'],
      `${status}: it was asked for a proof only`,
    );
  }
});

t.test('a root that holds only a copied API key is checked the same way', async (t) => {
  const root = path.join(work, 'key-only');
  const copied = path.join(root, path.relative(mine.paths.root, mine.paths.apiKeyFile));
  await mkdir(path.dirname(copied), { recursive: true });
  await copyFile(mine.paths.apiKeyFile, copied);
  const r = await authenticated(mine.server.apiUrl, root);
  t.equal(r.code, 0, r.stderr);
  const wrong = await authenticated(other.server.apiUrl, root);
  t.match(wrong, { code: 1, stderr: /was not sent to/ });
});

t.test('a backup given another box as --url asks it for nothing and still copies the box under its root', async (t) => {
  const relay = await impostor((_req, res) => void res.writeHead(404).end('{}'));
  const to = path.join(work, 'backup-of-mine');
  const r = await runAgentboxAsync(['backup', '--root', mine.paths.root, '--url', relay.url, '--to', to, '--json'], { cwd: work, env });
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, `the API key in ${mine.paths.apiKeyFile} was not sent to ${relay.url}`);
  t.match(r.stderr, /so the event log goes up to the box's latest checkpoint/);
  t.notOk(
    relay.seen.some((s) => s.authorization),
    'no key sent',
  );
  t.same(
    relay.seen.map((s) => s.url.split('?')[0]),
    ['/v1/auth/key-proof'],
    'no checkpoint asked of it',
  );
});

t.test('events verify --remote sends a --key-file key only to its box', async (t) => {
  const relay = await impostor((_req, res) => void res.writeHead(404).end('{}'));
  const old = path.join(work, 'old-checkpoint');
  // Not read: the key is refused before the old checkpoint is.
  await writeFile(old, 'not a checkpoint\n');
  const r = await runAgentboxAsync(['events', 'verify', '--remote', relay.url, '--against', old, '--key-file', mine.paths.apiKeyFile], { cwd: work, env });
  t.equal(r.code, 2, `exit 2, the box could not be checked; 1 would say its history forked: ${r.stderr}`);
  t.match(r.stderr, `the API key in ${mine.paths.apiKeyFile} was not sent to ${relay.url}`);
  t.notOk(
    relay.seen.some((s) => s.authorization),
    'no key sent',
  );
});

t.test('after the proof, a request that carries the key follows no redirect, not even to its own origin', async (t) => {
  // The key's box behind a front that passes the proof on (so the proof holds) and answers every
  // other route with a redirect to a path of its own origin, which fetch would follow with the key.
  const seen: { url: string; authorization?: string }[] = [];
  const front = createServer((req, res) => {
    seen.push({ url: req.url ?? '', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (!req.url?.startsWith('/v1/auth/key-proof')) return void res.writeHead(307, { location: '/moved' }).end();
    void fetch(`${mine.server.apiUrl}${req.url}`).then(async (proof) => {
      res.writeHead(proof.status, { 'content-type': 'application/json' }).end(await proof.text());
    });
  });
  front.listen(0, '127.0.0.1');
  await once(front, 'listening');
  t.teardown(() => new Promise<void>((resolve) => front.close(() => resolve())));
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const local = path.join(work, 'redirect-cp.txt');
  await writeFile(local, 'x');
  // One command for each way a command sends the key: a GET, an agent call, a decision, a copy each way.
  const commands = [
    ['approvals', '--json'],
    ['ps', '--json'],
    ['deny', 'apr_0000000000000000'],
    ['cp', local, 'someone:/x'],
    ['cp', 'someone:/x', local],
  ];
  for (const args of commands) {
    const r = await runAgentboxAsync([...args, '--url', url, '--root', mine.paths.root], { cwd: work, env });
    t.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    t.match(r.stderr, `${url}/v1/`, args.join(' '));
    t.match(r.stderr, 'answered with a redirect (HTTP 307 to "/moved"), which a request carrying the API key never follows', args.join(' '));
  }
  // events verify --remote exits 2 for it, as for any box it could not check: its exit 1 says the history forked.
  const held = path.join(work, 'held-checkpoint');
  const checkpoint = await fetch(`${mine.server.apiUrl}/v1/events/checkpoint`, { method: 'POST', headers: { authorization: `Bearer ${mine.key}` } });
  t.equal(checkpoint.status, 200, 'the box has a checkpoint to hold it to');
  await writeFile(held, await checkpoint.text());
  const verify = await runAgentboxAsync(['events', 'verify', '--remote', url, '--against', held, '--key-file', mine.paths.apiKeyFile], { cwd: work, env });
  t.equal(verify.code, 2, verify.stderr);
  t.match(verify.stderr, `${url}/v1/meta answered with a redirect (HTTP 307 to "/moved")`);
  t.same(
    seen.filter((s) => s.url === '/moved'),
    [],
    'the redirect was never followed, so the key went nowhere it points',
  );
  t.equal(
    seen.filter((s) => s.authorization === `Bearer ${mine.key}`).length,
    commands.length + 1,
    'the key went, once per command, to the URL that proved it holds it',
  );
});
