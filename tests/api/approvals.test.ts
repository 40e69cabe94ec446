// Approvals on a real box (local-jsonl events, local-procmgr agents, the egress proxy programme): a supervised agent's ask held
// for a spawn and for a CONNECT, approved, denied, timed out, and refused when forged (wrong signer, replay, changed request);
// an agent token cannot decide; scope agent settles the next ask; the queue is bounded; every step is on record.
import t from 'tap';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { finalizeEvent, generateSecretKey, getPublicKey, type Event } from 'nostr-tools/pure';
import { requestDigest } from '../../management-api/src/approvals/approval-request.js';
import { runAgentboxAsync } from '../helpers/cli.js';
import { startBoxWithProxy } from './support/box-with-proxy.js';
import { environOf } from './support/agent-processes.js';
import { waitFor, type TestServer } from './support/harness.js';

type Approval = {
  id: string;
  digest: string;
  policy: string;
  expires: string;
  action: string;
  agent: string | null;
  agentId: string | null;
  arguments: Record<string, unknown>;
  state: string;
  rule: { index: number; id?: string } | null;
};
type Stored = { kind: string; source: string; data: Record<string, unknown> };
type Reply = Awaited<ReturnType<TestServer['api']>>;

const operator = generateSecretKey();
const stranger = generateSecretKey();
let web: http.Server;
let webPort = 0;
/** A box where operators decide: its requests wait long enough that no decision races the clock. */
let box: TestServer;
let proxyPort = 0;
let rootDir = '';
/** A box whose requests time out after 3 s, for the cases where nobody decides. */
let hasty: TestServer;
let hastyProxyPort = 0;

/** How long an undecided request of the deciding box waits: far beyond any test's own steps. */
const DECIDING_TIMEOUT_SEC = 600;
const HASTY_TIMEOUT_SEC = 3;

function manifest(approvalTimeoutSec: number): string {
  return [
    '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"',
    `[mesh]\noperator_pubkeys = ["${getPublicKey(operator)}"]`,
    `[sandbox.egress]\nallow_domains = ["localhost"]\nallow_ports = [${webPort}]`,
    `[policy]\ndefault = "allow"\napproval_timeout_sec = ${approvalTimeoutSec}\nmax_pending_approvals = 8`,
    '[[policy.rules]]\nid = "sleep-asks"\naction = "spawn"\ndecision = "ask"\ncommand = "sleep"\nargs = ["30"]',
    `[[policy.rules]]\nid = "web-asks"\naction = "egress"\ndecision = "ask"\nhost = "localhost"\nport = ${webPort}`,
  ].join('\n');
}

/** A box with its own egress proxy programme whose undecided requests time out after `approvalTimeoutSec`. */
async function startApprovalBox(approvalTimeoutSec: number): Promise<{ box: TestServer; proxyPort: number; rootDir: string }> {
  const started = await startBoxWithProxy(manifest(approvalTimeoutSec));
  t.teardown(() => started.close());
  return started;
}

t.before(async () => {
  web = http.createServer((_req, res) => res.end('hello'));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webPort = (web.address() as net.AddressInfo).port;
  ({ box, proxyPort, rootDir } = await startApprovalBox(DECIDING_TIMEOUT_SEC));
  ({ box: hasty, proxyPort: hastyProxyPort } = await startApprovalBox(HASTY_TIMEOUT_SEC));
});
t.teardown(() => {
  web?.close();
});

const pending = async (): Promise<Approval[]> => (await box.api('/v1/approvals')).json['approvals'] as Approval[];
const nextPending = (count: number): Promise<Approval[]> =>
  waitFor(`${count} pending approvals`, async () => ((await pending()).length >= count ? pending() : undefined));
const approvalEvents = async (on = box): Promise<Stored[]> =>
  ((await on.api('/v1/events?limit=1000')).json['items'] as Stored[]).filter((e) => e.kind.startsWith('approval.'));
const spawnSupervised = (name: string, args = ['30'], on = box): Promise<Reply> =>
  on.api('/v1/agents', { body: { name, command: '/bin/sleep', args, autonomy: 'supervised' } });
const end = (id: string, on = box) => on.api(`/v1/agents/${id}?graceMs=0`, { method: 'DELETE' });
const decide = (id: string, body: Record<string, unknown>, auth?: string): Promise<Reply> =>
  box.api(`/v1/approvals/${id}`, { body, ...(auth ? { auth } : {}) });

/** A signed decision as the dashboard's NIP-07 signer or a CLI would make it. */
function sign(key: Uint8Array, a: Approval, decision: 'approve' | 'deny', scope = 'once', changes: Record<string, unknown> = {}): Event {
  const content = JSON.stringify({
    request: a.id,
    digest: a.digest,
    policy: a.policy,
    decision,
    scope,
    expires: Math.floor(Date.parse(a.expires) / 1000),
    ...changes,
  });
  return finalizeEvent({ kind: 4751, created_at: Math.floor(Date.now() / 1000), tags: [], content }, key);
}

t.test('a spawn: held, listed with its digest, approved with the API key (unsigned), then started', async (t) => {
  const answer = spawnSupervised('builder');
  const [a] = await nextPending(1);
  t.match(a, {
    action: 'spawn',
    agent: 'builder',
    agentId: null,
    arguments: { command: '/bin/sleep', args: ['30'] },
    rule: { index: 0, id: 'sleep-asks' },
    state: 'pending',
  });
  t.equal(
    a!.digest,
    requestDigest({ kind: 'spawn', agent: 'builder', command: '/bin/sleep', args: ['30'] }, { version: a!.policy }),
    'the digest is of the action, the agent, its arguments and the policy version',
  );
  const metrics = await (await fetch(box.server.metricsUrl)).text();
  t.match(metrics, /agentbox_approvals_pending 1/);
  const decided = await decide(a!.id, { decision: 'approve', reason: 'ok for the build' });
  t.equal(decided.status, 200);
  t.match(decided.json['approval'], {
    state: 'approved',
    decision: { outcome: 'approved', reason: 'ok for the build', scope: 'once', by: { signed: false, actor: { kind: 'api-key' } } },
  });
  const spawned = await answer;
  t.equal(spawned.status, 201, 'the held spawn went ahead');
  await end((spawned.json['agent'] as { id: string }).id);
  t.match(await decide(a!.id, { decision: 'deny' }), { status: 409, json: { error: 'ABX_ERR_APPROVAL_DECIDED' } }, 'a decision counts once');
  const events = await waitFor('requested and decided', async () => {
    const all = (await approvalEvents()).filter((e) => e.data['request'] === a!.id);
    return all.length >= 2 ? all : undefined;
  });
  t.match(events[0], {
    kind: 'approval.requested',
    source: 'approvals',
    data: { digest: a!.digest, action: 'spawn', name: 'builder', rule: { id: 'sleep-asks' } },
  });
  t.match(events[1], {
    kind: 'approval.decided',
    data: { outcome: 'approved', signed: false, actor: { kind: 'api-key' }, scope: 'once', reason: 'ok for the build' },
  });
  t.match(await (await fetch(box.server.metricsUrl)).text(), /agentbox_approval_decisions_total\{outcome="approved"\} 1/);
});

t.test('a spawn: forged decisions are refused and the request stays pending; a signed deny refuses the spawn', async (t) => {
  const answer = spawnSupervised('pusher');
  const [a] = await nextPending(1);
  const wrongSigner = await decide(a!.id, { decision: 'approve', signed: sign(stranger, a!, 'approve') });
  t.match(wrongSigner, { status: 403, json: { error: 'ABX_ERR_APPROVAL_SIGNATURE', message: /is not an operator key of this box/ } });
  const changed = await decide(a!.id, { decision: 'approve', signed: sign(operator, a!, 'approve', 'once', { digest: `sha256:${'0'.repeat(64)}` }) });
  t.match(changed, { status: 409, json: { error: 'ABX_ERR_APPROVAL_CHANGED' } }, 'a decision for a changed request');
  t.match(
    await decide(a!.id, { decision: 'approve', digest: `sha256:${'1'.repeat(64)}` }),
    { status: 409, json: { error: 'ABX_ERR_APPROVAL_CHANGED' } },
    'also unsigned, when the digest seen is named',
  );
  const tampered = { ...sign(operator, a!, 'deny'), content: JSON.stringify({ request: a!.id }) };
  t.match(await decide(a!.id, { decision: 'deny', signed: tampered }), { status: 403, json: { message: /does not verify/ } }, 'content changed after signing');
  t.match(await decide(a!.id, { decision: 'approve', signed: sign(operator, a!, 'deny') }), {
    status: 403,
    json: { message: /states "deny", the call asks to approve/ },
  });
  t.equal((await pending())[0]?.state, 'pending', 'still pending after every refusal');
  const signed = sign(operator, a!, 'deny');
  const denied = await decide(a!.id, { decision: 'deny', reason: 'not now', signed });
  t.equal(denied.status, 200);
  t.match(denied.json['approval'], {
    state: 'denied',
    decision: { by: { signed: true, pubkey: getPublicKey(operator), signature: { id: signed.id, sig: signed.sig } } },
  });
  const refused = await answer;
  t.match(refused, {
    status: 403,
    json: {
      error: 'ABX_ERR_POLICY_DENIED',
      message: new RegExp(`asks for approval; denied by ${getPublicKey(operator)} \\(signed\\) \\(request ${a!.id}\\): not now`),
    },
  });

  // The same action again: a new request with the same digest; the old signed event is a replay.
  const again = spawnSupervised('pusher');
  const [b] = await nextPending(1);
  t.equal(b!.digest, a!.digest, 'the same action has the same digest');
  t.match(
    await decide(b!.id, { decision: 'deny', reason: 'not now', signed }),
    { status: 403, json: { error: 'ABX_ERR_APPROVAL_SIGNATURE', message: /it is for request/ } },
    'a replayed decision',
  );
  t.equal((await decide(b!.id, { decision: 'deny' })).status, 200);
  t.equal((await again).status, 403);
  const refusedEvents = (await approvalEvents()).filter((e) => e.data['outcome'] === 'refused');
  t.ok(refusedEvents.length >= 5, 'each refused decision is on record');
  t.ok(
    refusedEvents.some((e) => e.data['approver'] === getPublicKey(stranger)),
    'naming the key that tried',
  );
});

t.test('a spawn: no decision in approval_timeout_sec denies', async (t) => {
  const started = Date.now();
  const refused = await spawnSupervised('slow', ['30'], hasty);
  t.match(refused, { status: 403, json: { error: 'ABX_ERR_POLICY_DENIED', message: /timed out \(request apr_[0-9a-f]+\): no decision within 3 s/ } });
  t.ok(Date.now() - started >= 2_900, 'held for the timeout');
  const event = await waitFor('the timeout on record', async () =>
    (await approvalEvents(hasty)).find((e) => e.kind === 'approval.decided' && e.data['outcome'] === 'timeout'),
  );
  t.match(event, { data: { name: 'slow', actor: { kind: 'box' } } });
});

t.test('an agent token can neither list nor decide', async (t) => {
  const spawned = await box.api('/v1/agents', { body: { name: 'worker', command: '/bin/sleep', args: ['60'] } });
  t.equal(spawned.status, 201);
  const agent = spawned.json['agent'] as { id: string; pid: number };
  t.teardown(() => end(agent.id));
  const token = (await environOf(agent.pid))['AGENTBOX_TOKEN']!;
  const answer = spawnSupervised('worker');
  const [a] = await nextPending(1);
  t.match(await box.api('/v1/approvals', { auth: token }), { status: 403 });
  t.match(await decide(a!.id, { decision: 'approve' }, token), { status: 403, json: { error: 'ABX_ERR_AGENT_SCOPE' } });
  t.match(await box.api(`/v1/approvals/${a!.id}`, { auth: 'not-the-key' }), { status: 401 });
  t.equal((await pending())[0]?.state, 'pending');
  t.equal((await decide(a!.id, { decision: 'deny' })).status, 200);
  t.equal((await answer).status, 403);
});

t.test('scope agent: the next ask of the same rule by the same agent is settled without a request; the queue is bounded', async (t) => {
  const first = spawnSupervised('repeat');
  const [a] = await nextPending(1);
  t.equal((await decide(a!.id, { decision: 'approve', scope: 'agent', signed: sign(operator, a!, 'approve', 'agent') })).status, 200);
  const one = await first;
  t.equal(one.status, 201);
  // One agent per working directory at a time: the first ends before the second asks.
  await end((one.json['agent'] as { id: string }).id);
  const second = await spawnSupervised('repeat');
  t.equal(second.status, 201, 'approved by the scope at once');
  t.equal((await pending()).length, 0, 'no new request');
  await end((second.json['agent'] as { id: string }).id);
  t.match(await decide(a!.id, { decision: 'approve', scope: 'until=2000-01-01T00:00:00Z' }), { status: 409 });

  // max_pending_approvals = 8: one agent holds at most 2.
  const held = [spawnSupervised('flood'), spawnSupervised('flood')];
  await nextPending(2);
  const third = await spawnSupervised('flood');
  t.match(third, { status: 403, json: { message: /agent flood has 2 approval requests pending already \(at most 2\)/ } });
  for (const p of await pending()) await decide(p.id, { decision: 'deny' });
  for (const r of await Promise.all(held)) t.equal(r.status, 403);
  t.match(await decide('apr_000000000000000000', { decision: 'deny' }), { status: 404, json: { error: 'ABX_ERR_APPROVAL_NOT_FOUND' } });
  t.match(await decide(a!.id.replace('apr_', 'xyz'), { decision: 'deny' }), { status: 400 });
});

t.test('a CONNECT through the real proxy: held open, approved (signed), denied, forged', async (t) => {
  const spawned = await box.api('/v1/agents', { body: { name: 'fetcher', command: '/bin/sleep', args: ['60'], autonomy: 'supervised' } });
  t.equal(spawned.status, 201);
  const agent = spawned.json['agent'] as { id: string; pid: number };
  t.teardown(() => end(agent.id));
  const proxyUrl = new URL((await environOf(agent.pid))['HTTP_PROXY']!);
  const auth = `Basic ${Buffer.from(`${proxyUrl.username}:${proxyUrl.password}`).toString('base64')}`;

  const tunnel = connect(proxyPort, `localhost:${webPort}`, auth);
  const [a] = await nextPending(1);
  t.match(a, { action: 'egress', agent: 'fetcher', agentId: agent.id, arguments: { host: 'localhost', port: webPort }, rule: { id: 'web-asks' } });
  t.match(await decide(a!.id, { decision: 'approve', signed: sign(stranger, a!, 'approve') }), { status: 403 }, 'a wrong signer');
  t.match(
    await decide(a!.id, {
      decision: 'approve',
      signed: sign(operator, a!, 'approve', 'once', {
        digest: requestDigest({ kind: 'egress', agent: 'fetcher', host: 'localhost', port: webPort + 1 }, { version: a!.policy }),
      }),
    }),
    { status: 409 },
    'a decision for another port',
  );
  t.equal((await decide(a!.id, { decision: 'approve', signed: sign(operator, a!, 'approve') })).status, 200);
  const opened = await tunnel;
  t.equal(opened.status, 200, 'the tunnel opened once approved');

  const refused = connect(proxyPort, `localhost:${webPort}`, auth);
  const [b] = await nextPending(1);
  t.equal(b!.digest, a!.digest);
  t.match(await decide(b!.id, { decision: 'approve', signed: sign(operator, a!, 'approve') }), { status: 403 }, 'the first approval replayed');
  t.equal((await decide(b!.id, { decision: 'deny', reason: 'enough' })).status, 200);
  const denied = await refused;
  t.equal(denied.status, 403);
  t.equal(denied.reason, 'policy-denied');
  t.match(denied.refusal, /asks for approval; denied by api-key \(request apr_[0-9a-f]+\): enough/);
  const event = await waitFor('the egress policy.decision', async () =>
    ((await box.api('/v1/events?limit=1000&kind=policy.decision')).json['items'] as Stored[]).find((e) => e.data['action'] === 'egress'),
  );
  t.match(event, { source: 'egress', data: { agent: agent.id, decision: 'ask', outcome: 'denied', autonomy: 'supervised' } });
});

t.test('a CONNECT: no decision in time is refused, the agent told so', async (t) => {
  const spawned = await hasty.api('/v1/agents', { body: { name: 'waiter', command: '/bin/sleep', args: ['60'], autonomy: 'supervised' } });
  const agent = spawned.json['agent'] as { id: string; pid: number };
  t.teardown(() => end(agent.id, hasty));
  const proxyUrl = new URL((await environOf(agent.pid))['HTTP_PROXY']!);
  const denied = await connect(hastyProxyPort, `localhost:${webPort}`, `Basic ${Buffer.from(`${proxyUrl.username}:${proxyUrl.password}`).toString('base64')}`);
  t.equal(denied.status, 403);
  t.match(denied.refusal, /timed out \(request apr_[0-9a-f]+\): no decision within 3 s/);
});

t.test('the CLI: agentbox approvals lists, approve signs with an operator key file, deny with the API key', async (t) => {
  const cli = (...args: string[]) => runAgentboxAsync([...args, '--url', `http://127.0.0.1:${box.server.apiPort}`, '--root', rootDir]);
  t.match((await cli('approvals')).stdout, /no approval requests pending/);
  const first = spawnSupervised('cli-agent');
  const [a] = await nextPending(1);
  const listed = await cli('approvals');
  t.equal(listed.code, 0);
  t.match(listed.stdout, new RegExp(`^${a!.id} +\\d+s  spawn +cli-agent  command=/bin/sleep args=\\["30"\\]  — rule 0 \\(sleep-asks\\): matched`));
  t.same(
    JSON.parse((await cli('approvals', '--json')).stdout).map((x: Approval) => x.id),
    [a!.id],
  );
  const keyFile = path.join(rootDir, 'operator.key');
  writeFileSync(keyFile, Buffer.from(operator).toString('hex'), { mode: 0o600 });
  const approved = await cli('approve', a!.id, '--reason', 'from the CLI', '--sign-key-file', keyFile);
  t.equal(approved.code, 0, approved.stderr);
  t.match(approved.stdout, `${a!.id}: approved (scope once, signed)`);
  const spawned = await first;
  t.equal(spawned.status, 201);
  await end((spawned.json['agent'] as { id: string }).id);

  const second = spawnSupervised('cli-agent-2');
  const [b] = await nextPending(1);
  const strangerFile = path.join(rootDir, 'stranger.key');
  writeFileSync(strangerFile, Buffer.from(stranger).toString('hex'), { mode: 0o600 });
  const forged = await cli('approve', b!.id, '--sign-key-file', strangerFile);
  t.equal(forged.code, 1);
  t.match(forged.stderr, /ABX_ERR_APPROVAL_SIGNATURE/);
  t.equal((await cli('deny', b!.id, '--scope', 'agent')).code, 2, 'deny takes no scope');
  const denied = await cli('deny', b!.id, '--reason', 'no');
  t.match(denied.stdout, `${b!.id}: denied (scope once, unsigned)`);
  t.equal((await second).status, 403);
});

/** CONNECT through the proxy; the status, the X-Agentbox-Egress reason, the refusal header and the body. */
function connect(port: number, target: string, auth: string): Promise<{ status: number; reason?: string; refusal?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (!got.includes('\r\n\r\n')) return;
      const status = Number(got.split(' ')[1]);
      if (status !== 200 && !s.readableEnded) {
        s.once('end', () => finish());
        return;
      }
      finish();
    });
    const finish = (): void => {
      s.removeAllListeners('data');
      s.destroy();
      const reason = /x-agentbox-egress: (\S+)/i.exec(got)?.[1];
      const refusal = /x-agentbox-refusal: ([^\r]+)/i.exec(got)?.[1];
      resolve({
        status: Number(got.split(' ')[1]),
        ...(reason ? { reason } : {}),
        ...(refusal ? { refusal } : {}),
        body: got.slice(got.indexOf('\r\n\r\n') + 4),
      });
    };
    s.once('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: ${auth}\r\n\r\n`);
  });
}
