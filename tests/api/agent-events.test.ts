// Signed agent events against a real relay (@nostr-relay over ws): bead transitions and agent
// spawn, exit and crash loop published and verifiable; /ready needs a reachable relay while
// publishing; the queue is bounded and its drops counted; publishing off opens no connection.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { verifyEvent, type Event } from 'nostr-tools/pure';
import { nsecEncode } from 'nostr-tools/nip19';
import { hexToBytes } from 'nostr-tools/utils';
import { readFile } from 'node:fs/promises';
import { AGENT_EVENT_KIND } from '../../management-api/src/mesh/agent-event.js';
import { startTestRelay, type TestRelay } from '../helpers/nostr-relay.js';
import { freePort } from './support/tcp-backend.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

const timing = { agentPollMs: 50, connectTimeoutMs: 1_000, publishTimeoutMs: 1_000, retryInitialMs: 30, retryMaxMs: 150 };
const manifest = (relays: string[], options: { beads?: string; orchestrator?: string; publish?: boolean } = {}) =>
  `[adapters]\nbeads = "${options.beads ?? 'local-sqlite'}"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "${options.orchestrator ?? 'off'}"\n` +
  `[sovereign_mesh]\nenabled = true\npublish_agent_events = ${String(options.publish ?? true)}\nrelays = ${JSON.stringify(relays)}\n`;

const seal = (box: TestServer) => writeFile(box.paths.sealFile, 'sealed\n');
const metric = async (box: TestServer, pattern: string): Promise<number | undefined> => {
  const text = await (await fetch(box.server.metricsUrl)).text();
  const m = new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};
const label = (e: Event): string | undefined => e.tags.find((tag) => tag[0] === 'l')?.[1];
/** Stored events, re-parsed so that signatures are checked afresh. */
const stored = async (relay: TestRelay): Promise<Event[]> =>
  (await relay.events({ kinds: [AGENT_EVENT_KIND] })).map((e) => JSON.parse(JSON.stringify(e)) as Event).sort((a, b) => a.created_at - b.created_at);

t.test('bead transitions and agent lifecycle reach the relay, signed by the box', async (t) => {
  const relay = await startTestRelay();
  const box = await startTestServer({ toml: manifest([relay.url], { orchestrator: 'local-procmgr' }), agentEventTiming: timing });
  t.teardown(async () => {
    await box.close();
    await relay.close();
  });
  await seal(box);
  await waitFor('ready with the relay', async () => (await box.api('/ready', { auth: false })).status === 200);
  t.match((await box.api('/ready', { auth: false })).json, {
    requirements: ['seal', 'mount:state', 'mount:workspace', 'mount:run', 'disk:state', 'disk:workspace', 'adapter:orchestrator', 'relay'],
  });
  const pubkey = ((await box.api('/v1/meta')).json['identity'] as { pubkey: string }).pubkey;

  const bead = (await box.api('/v1/beads', { body: { title: 'secret plans', body: 'do not publish' } })).json['bead'] as { id: string };
  t.equal((await box.api(`/v1/beads/${bead.id}/claim`, { body: { claimant: 'worker-1' } })).status, 200);
  t.equal((await box.api(`/v1/beads/${bead.id}/claim`, { body: { claimant: 'worker-1' } })).status, 200, 'a repeated claim');
  t.equal((await box.api(`/v1/beads/${bead.id}/close`, { body: { outcome: 'success', note: 'private note' } })).status, 200);

  const spawned = await box.api('/v1/agents', { body: { name: 'once', command: '/bin/sh', args: ['-c', 'exit 3'] } });
  t.equal(spawned.status, 201);
  // Five failures of one name within the window make a crash loop.
  for (let i = 0; i < 5; i++) {
    const r = await box.api('/v1/agents', { body: { name: 'crashy', command: '/bin/sh', args: ['-c', 'exit 1'] } });
    const id = (r.json['agent'] as { id: string }).id;
    await waitFor(`crashy #${i} ends`, async () => ((await box.api(`/v1/agents/${id}`)).json['agent'] as { state: string }).state !== 'running');
  }

  const events = await waitFor('every event on the relay', async () => {
    const all = await stored(relay);
    return all.some((e) => label(e) === 'agent.crash-loop') && all.filter((e) => label(e) === 'agent.exit').length >= 5 ? all : undefined;
  });
  for (const e of events) {
    t.ok(verifyEvent(e), `event ${e.id.slice(0, 8)} has a valid signature`);
    t.equal(e.pubkey, pubkey, 'signed by the box identity');
    t.same(e.tags.slice(0, 3), [
      ['t', 'agentbox'],
      ['L', 'dev.agentbox'],
      ['l', label(e), 'dev.agentbox'],
    ]);
    t.notMatch(e.content, /secret plans|do not publish|private note|\/bin\/sh|exit 1/, 'no titles, bodies, notes or commands');
  }
  const beadEvents = events.filter((e) => e.tags.some((tag) => tag[0] === 'bead' && tag[1] === bead.id));
  // Nostr times are in seconds: events of one second have no order, so compare as sets.
  t.same(beadEvents.map(label).sort(), ['bead.claimed', 'bead.closed', 'bead.open'], 'each transition once');
  t.match(JSON.parse(beadEvents.find((e) => label(e) === 'bead.closed')!.content), {
    type: 'bead.closed',
    bead: { id: bead.id, status: 'closed', outcome: 'success', claimedBy: 'worker-1' },
  });
  const once = events.filter((e) => e.tags.some((tag) => tag[0] === 'agent' && tag[2] === 'once'));
  t.same(once.map(label).sort(), ['agent.exit', 'agent.spawn']);
  t.match(JSON.parse(once.find((e) => label(e) === 'agent.exit')!.content), { type: 'agent.exit', agent: { name: 'once', state: 'failed', exitCode: 3 } });
  t.ok(
    events.some((e) => label(e) === 'agent.crash-loop' && JSON.parse(e.content).agent.name === 'crashy'),
    'the crash loop',
  );
  t.equal(await metric(box, `agentbox_mesh_events_published_total\\{relay="${relay.url}"\\}`), events.length);
  t.equal(await metric(box, `agentbox_mesh_relay_up\\{relay="${relay.url}"\\}`), 1);

  const secret = (await readFile(box.paths.identityKeyFile, 'utf8')).trim();
  t.notOk(box.logs.text().includes(secret), 'the identity secret is not in the logs');
  t.notOk(box.logs.text().includes(nsecEncode(hexToBytes(secret))), 'nor its nsec');
});

t.test('/ready is 503 while no relay is reachable and 200 once one is', async (t) => {
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const box = await startTestServer({ toml: manifest([url]), agentEventTiming: timing });
  let relay: TestRelay | undefined;
  t.teardown(async () => {
    await box.close();
    await relay?.close();
  });
  await seal(box);
  const unready = await waitFor('503 naming the relay', async () => {
    const r = await box.api('/ready', { auth: false });
    return r.status === 503 && (r.json['missing'] as string[]).join() === 'relay' ? r : undefined;
  });
  t.match(unready.json['reason'], `agent events are published but no relay is reachable (${url})`);
  t.same((await box.api('/health', { auth: false })).json['relays'], { configured: [url], reachable: [] });
  relay = await startTestRelay(port);
  await waitFor('200 once the relay listens', async () => (await box.api('/ready', { auth: false })).status === 200);
  t.same((await box.api('/health', { auth: false })).json['relays'], { configured: [url], reachable: [url] });
  await relay.stop();
  await waitFor('503 again when it goes away', async () => (await box.api('/ready', { auth: false })).status === 503);
  await relay.start();
  await waitFor('and 200 after it returns', async () => (await box.api('/ready', { auth: false })).status === 200);
});

t.test('the queue is bounded: the oldest events are dropped and counted, the rest published later', async (t) => {
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}`;
  const box = await startTestServer({ toml: manifest([url]), agentEventTiming: { ...timing, queueLimit: 3 } });
  let relay: TestRelay | undefined;
  t.teardown(async () => {
    await box.close();
    await relay?.close();
  });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(((await box.api('/v1/beads', { body: { title: `b${i}` } })).json['bead'] as { id: string }).id);
  t.equal(await metric(box, `agentbox_mesh_events_dropped_total\\{relay="${url}",reason="queue-full"\\}`), 2);
  t.equal(await metric(box, `agentbox_mesh_queue_length\\{relay="${url}"\\}`), 3);
  relay = await startTestRelay(port);
  const r = relay;
  const events = await waitFor('the three kept events', async () => {
    const all = await stored(r);
    return all.length === 3 ? all : undefined;
  });
  t.same(new Set(events.map((e) => e.tags.find((tag) => tag[0] === 'bead')?.[1])), new Set(ids.slice(2)), 'the newest three');
  await waitFor('queue empty', async () => (await metric(box, `agentbox_mesh_queue_length\\{relay="${url}"\\}`)) === 0);
});

t.test('an event the relay refuses is retried, then dropped and counted', async (t) => {
  const relay = await startTestRelay();
  relay.refuse('blocked: not today');
  const box = await startTestServer({ toml: manifest([relay.url]), agentEventTiming: { ...timing, maxAttempts: 3 } });
  t.teardown(async () => {
    await box.close();
    await relay.close();
  });
  await waitFor('connected', async () => (await metric(box, `agentbox_mesh_relay_up\\{relay="${relay.url}"\\}`)) === 1);
  await box.api('/v1/beads', { body: { title: 'refused' } });
  await waitFor('dropped as rejected', async () => (await metric(box, `agentbox_mesh_events_dropped_total\\{relay="${relay.url}",reason="rejected"\\}`)) === 1);
  t.match(box.logs.events('AgentEventDropped'), [{ relay: relay.url, reason: 'blocked: not today' }]);
  relay.refuse(undefined);
  await box.api('/v1/beads', { body: { title: 'accepted' } });
  await waitFor('the next one is published', async () => (await stored(relay)).length === 1);
  t.equal(await metric(box, `agentbox_mesh_events_published_total\\{relay="${relay.url}"\\}`), 1);
});

t.test('with publishing off no relay is contacted and /ready does not ask for one', async (t) => {
  const relay = await startTestRelay();
  const box = await startTestServer({ toml: manifest([relay.url], { publish: false }), agentEventTiming: timing });
  t.teardown(async () => {
    await box.close();
    await relay.close();
  });
  await seal(box);
  await waitFor('ready', async () => (await box.api('/ready', { auth: false })).status === 200);
  t.notOk(((await box.api('/ready', { auth: false })).json['requirements'] as string[]).includes('relay'));
  t.notOk('relays' in (await box.api('/health', { auth: false })).json);
  await box.api('/v1/beads', { body: { title: 'quiet' } });
  await new Promise((r) => setTimeout(r, 200));
  t.equal(relay.connectionsEver(), 0, 'the relay never saw a connection');
  t.equal(await metric(box, `agentbox_mesh_relay_up\\{relay="${relay.url}"\\}`), undefined);
});
