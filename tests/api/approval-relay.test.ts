// Approval requests published to a real relay (@nostr-relay over ws): a supervised spawn's request arrives as a kind-4752 event
// signed by the box, bound to the request's id and digest, with secret-looking arguments censored; it is published wherever relays are
// configured, also when agent events are not (then no agent event goes, and readiness does not wait for the relays); sovereign_mesh off sends nothing.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { verifyEvent, type Event } from 'nostr-tools/pure';
import { AGENT_EVENT_KIND } from '../../management-api/src/mesh/agent-event.js';
import { APPROVAL_REQUEST_EVENT_KIND } from '../../management-api/src/mesh/approval-event.js';
import { startTestRelay } from '../helpers/nostr-relay.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

type Approval = { id: string; digest: string; policy: string; expires: string; created: string; agent: string };

const timing = { agentPollMs: 50, connectTimeoutMs: 1_000, publishTimeoutMs: 1_000, retryInitialMs: 30, retryMaxMs: 150 };
const manifest = (relay: string, publish: boolean, enabled = true) =>
  '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' +
  `[sovereign_mesh]\nenabled = ${String(enabled)}\npublish_agent_events = ${String(publish)}\nrelays = ${JSON.stringify([relay])}\n` +
  '[policy]\ndefault = "allow"\napproval_timeout_sec = 600\n' +
  '[[policy.rules]]\nid = "sleep-asks"\naction = "spawn"\ndecision = "ask"\ncommand = "sleep"\nargs = ["30"]\n';
// A GitHub token's shape: the log and the relay get it censored, never as written.
const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
const spawnSupervised = (box: TestServer, name: string) =>
  box.api('/v1/agents', { body: { name, command: '/bin/sleep', args: ['30', token], autonomy: 'supervised' } });
const pendingOf = (box: TestServer, name: string) =>
  waitFor(`the request of ${name}`, async () => ((await box.api('/v1/approvals')).json['approvals'] as Approval[]).find((a) => a.agent === name));

t.test('a held spawn is published as a signed approval request, its arguments censored', async (t) => {
  const relay = await startTestRelay();
  const box = await startTestServer({ toml: manifest(relay.url, true), agentEventTiming: timing });
  t.teardown(async () => {
    await box.close();
    await relay.close();
  });
  await writeFile(box.paths.sealFile, 'sealed\n');
  await waitFor('ready with the relay', async () => (await box.api('/ready', { auth: false })).status === 200);
  const pubkey = ((await box.api('/v1/meta')).json['identity'] as { pubkey: string }).pubkey;

  const answer = spawnSupervised(box, 'releaser');
  const a = await pendingOf(box, 'releaser');
  const [event] = await waitFor('the request on the relay', async () => {
    const got = (await relay.events({ kinds: [APPROVAL_REQUEST_EVENT_KIND] })).map((e) => JSON.parse(JSON.stringify(e)) as Event);
    return got.length > 0 ? got : undefined;
  });
  t.ok(verifyEvent(event!), 'the id and signature verify');
  t.equal(event!.pubkey, pubkey, 'signed by the box identity');
  t.same(
    event!.tags.filter((tag) => ['l', 'approval'].includes(tag[0]!)),
    [
      ['l', 'approval.requested', 'dev.agentbox'],
      ['approval', a.id, a.digest],
    ],
  );
  const content = JSON.parse(event!.content) as { type: string; request: Record<string, unknown> };
  t.match(content, {
    type: 'approval.requested',
    request: {
      id: a.id,
      digest: a.digest,
      action: 'spawn',
      agent: 'releaser',
      rule: { index: 0, id: 'sleep-asks' },
      policy: a.policy,
      expires: a.expires,
      arguments: { command: '/bin/sleep', args: ['30', '[Redacted]'] },
    },
  });
  t.notOk(event!.content.includes(token), 'the token is not on the relay');
  t.notOk('reason' in content.request, "the rule's reason (which quotes matched values) is left out");

  t.equal((await box.api(`/v1/approvals/${a.id}`, { body: { decision: 'deny' } })).status, 200);
  t.equal((await answer).status, 403);
});

t.test('agent events off, relays configured: the request still reaches the relays, no agent event does, readiness does not wait for them', async (t) => {
  const relay = await startTestRelay();
  const box = await startTestServer({ toml: manifest(relay.url, false), agentEventTiming: timing });
  t.teardown(async () => {
    await box.close();
    await relay.close();
  });
  await writeFile(box.paths.sealFile, 'sealed\n');
  await waitFor('ready', async () => (await box.api('/ready', { auth: false })).status === 200);
  t.equal((await box.api('/health', { auth: false })).json['relays'], undefined, 'the relays are no part of readiness or health');
  const plain = await box.api('/v1/agents', { body: { name: 'plain', command: '/bin/true', args: [] } });
  t.equal(plain.status, 201);
  const answer = spawnSupervised(box, 'quiet');
  const a = await pendingOf(box, 'quiet');
  const [event] = await waitFor('the request on the relay', async () => {
    const got = await relay.events({ kinds: [APPROVAL_REQUEST_EVENT_KIND] });
    return got.length > 0 ? got : undefined;
  });
  t.match(JSON.parse((event as Event).content), { request: { id: a.id, digest: a.digest } }, 'the approval request');
  t.equal((await box.api(`/v1/approvals/${a.id}`, { body: { decision: 'deny' } })).status, 200);
  t.equal((await answer).status, 403);
  t.same(await relay.events({ kinds: [AGENT_EVENT_KIND] }), [], 'no agent event: publish_agent_events is off');
});

t.test('sovereign_mesh off: the request is held and listed, nothing reaches the relay', async (t) => {
  const relay = await startTestRelay();
  const box = await startTestServer({ toml: manifest(relay.url, false, false), agentEventTiming: timing });
  t.teardown(async () => {
    await box.close();
    await relay.close();
  });
  const answer = spawnSupervised(box, 'quiet');
  const a = await pendingOf(box, 'quiet');
  t.equal((await box.api(`/v1/approvals/${a.id}`, { body: { decision: 'deny' } })).status, 200);
  t.equal((await answer).status, 403);
  t.same(await relay.events({ kinds: [APPROVAL_REQUEST_EVENT_KIND] }), [], 'no event: the box opened no relay connection');
});
