// The audit trail on a real box (local-jsonl events, local-sqlite beads, local-procmgr agents, the
// egress proxy programme): agents' spawn, terminate and exit, bead transitions and allowlist changes
// read back from GET /v1/events in order with their callers, live on the stream, and the chain verifies.
// A critical events slot that cannot record refuses actions.
import t from 'tap';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';
import { verifyEventLog } from '../../management-api/src/adapters/events/log-verify.js';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { payloadHash } from '../../management-api/src/mesh/nip98.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { startProxyProgramme } from './support/egress-proxy-programme.js';
import { asBrowser, openSse, signIn } from './support/dashboard.js';
import { makeRoot, startTestServer, waitFor, type TestServer } from './support/harness.js';

const operator = generateSecretKey();
const adapters = (critical: string[]) =>
  `[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\ncritical = ${JSON.stringify(critical)}\n`;
const toml = `${adapters(['orchestrator'])}[mesh]\noperator_pubkeys = ["${npubEncode(getPublicKey(operator))}"]\n[sandbox.limits]\ncpu_seconds = 30\n[sandbox.egress]\nallow_domains = ["example.org"]\nallow_ports = [443]\n`;

type Stored = { seq: number; kind: string; source: string; data: Record<string, unknown> };
type Agent = { id: string; state: string };
const AUDIT = new Set(['agent.spawn', 'agent.terminate', 'agent.exit', 'bead.open', 'bead.claimed', 'bead.closed', 'sandbox.egress.policy']);

/** A NIP-98 Authorization header for one request, signed by `sk`. */
function nostr(sk: Uint8Array, url: string, method: string, body: string): string {
  const template: EventTemplate = {
    kind: 27235,
    created_at: Math.floor(Date.now() / 1000),
    content: '',
    tags: [
      ['u', url],
      ['method', method],
      ['payload', payloadHash(body)],
    ],
  };
  return `Nostr ${Buffer.from(JSON.stringify(finalizeEvent(template, sk))).toString('base64')}`;
}

const ended = (box: TestServer, id: string) =>
  waitFor(`agent ${id} to end`, async () => ((await box.api(`/v1/agents/${id}`)).json['agent'] as Agent).state !== 'running', 20_000);
/** Every audit event in the log, oldest first. */
const auditEvents = async (box: TestServer): Promise<Stored[]> =>
  ((await box.api('/v1/events?limit=1000')).json['items'] as Stored[]).filter((e) => AUDIT.has(e.kind));

t.test('agents, beads and the allowlist leave a complete, chained trail', async (t) => {
  const root = await makeRoot();
  const manifestFile = path.join(root.dir, 'agentbox.toml');
  writeFileSync(manifestFile, toml);
  await ensureApiKey(root.paths.apiKeyFile, createLogger({ level: 'silent' }));
  const proxy = await startProxyProgramme(root.dir, manifestFile);
  t.teardown(() => void proxy.proc.kill());
  const box = await startTestServer({ toml, root, egress: { socketPath: root.paths.egressControlSocket, timing: { retryMinMs: 20, retryMaxMs: 100 } } });
  t.teardown(() => box.close());
  await waitFor('the egress control channel', () => box.server.app.agentbox.egress!.status().reachable);
  const sandbox = box.server.app.agentbox.sandbox.status().namespaces.active ? 'bubblewrap' : 'launcher';
  const live = await openSse(`${box.server.apiUrl}/v1/events/stream?kind=agent.exit&kind=bead.closed&kind=sandbox.egress.policy`, {
    authorization: `Bearer ${box.key}`,
  });
  t.teardown(() => live.close());

  // One agent exits on its own (with a variable whose value must not be recorded), one is terminated, one goes over its CPU budget.
  const once = (
    await box.api('/v1/agents', {
      body: { name: 'once', command: '/bin/sh', args: ['-c', 'exit 3'], env: { GREETING: 'value-never-recorded' }, limits: { processes: 8 } },
    })
  ).json['agent'] as Agent;
  await ended(box, once.id);
  const sleeper = (await box.api('/v1/agents', { body: { name: 'sleeper', command: 'sleep', args: ['30'] } })).json['agent'] as Agent;
  t.equal((await box.api(`/v1/agents/${sleeper.id}?graceMs=2000`, { method: 'DELETE' })).status, 200);
  const spinner = (
    await box.api('/v1/agents', { body: { name: 'spinner', command: '/bin/sh', args: ['-c', 'while :; do :; done'], limits: { cpu_seconds: 1 } } })
  ).json['agent'] as Agent;
  await ended(box, spinner.id);

  // One bead through its life: created with the key, claimed with the key, closed by a NIP-98 operator.
  const bead = (await box.api('/v1/beads', { body: { title: 'audit me', body: 'the body stays out of the trail' } })).json['bead'] as { id: string };
  t.equal((await box.api(`/v1/beads/${bead.id}/claim`, { body: { claimant: 'worker-1' } })).status, 200);
  const closeBody = JSON.stringify({ outcome: 'success', note: 'done' });
  const closeUrl = `${box.server.apiUrl}/v1/beads/${bead.id}/close`;
  t.equal(
    (
      await box.api(`/v1/beads/${bead.id}/close`, {
        auth: false,
        rawBody: closeBody,
        method: 'POST',
        headers: { authorization: nostr(operator, closeUrl, 'POST', closeBody), 'content-type': 'application/json' },
      })
    ).status,
    200,
  );

  // An agent creates and claims a bead of its own with its token.
  const script =
    "const h={authorization:'Bearer '+process.env.AGENTBOX_TOKEN,'content-type':'application/json'};const u=process.env.AGENTBOX_API_URL;" +
    "const b=await (await fetch(u+'/v1/beads',{method:'POST',headers:h,body:JSON.stringify({title:'mine'})})).json();" +
    "const c=await fetch(u+'/v1/beads/'+b.bead.id+'/claim',{method:'POST',headers:h,body:JSON.stringify({claimant:process.env.AGENTBOX_AGENT_NAME})});console.log(b.bead.id,c.status)";
  const worker = (await box.api('/v1/agents', { body: { name: 'worker', command: process.execPath, args: ['--input-type=module', '-e', script] } })).json[
    'agent'
  ] as Agent;
  await ended(box, worker.id);
  const output = ((await box.api(`/v1/agents/${worker.id}/output`)).json['chunks'] as Array<{ stream: string; text: string }>)
    .filter((c) => c.stream === 'stdout')
    .map((c) => c.text)
    .join('');
  const [agentBead, claimStatus] = output.trim().split(' ');
  t.equal(claimStatus, '200', `the agent claimed its bead (output: ${output})`);

  // The allowlist changed from the dashboard.
  const browser = await signIn(box);
  t.equal(
    (await asBrowser(box, browser, '/v1/sandbox/egress', { method: 'PUT', body: { allow_domains: ['example.org', 'pypi.org'], allow_ports: [443] } })).status,
    200,
  );

  const events = await waitFor('the last exit and the policy change', async () => {
    const all = await auditEvents(box);
    return all.filter((e) => e.kind === 'agent.exit').length === 4 && all.some((e) => e.kind === 'sandbox.egress.policy') ? all : undefined;
  });
  const of = (agent: string) => events.filter((e) => e.data['agent'] === agent).map((e) => e.kind);
  t.same(of(once.id), ['agent.spawn', 'agent.exit'], 'an agent that exits: spawn, then exit');
  t.same(of(sleeper.id), ['agent.spawn', 'agent.terminate', 'agent.exit'], 'a terminated agent: spawn, terminate, exit');
  t.same(of(spinner.id), ['agent.spawn', 'agent.terminate', 'agent.exit'], 'an agent over its budget: spawn, terminate, exit');
  const find = (kind: string, agent: string) => events.find((e) => e.kind === kind && e.data['agent'] === agent)!;
  const apiKey = { kind: 'api-key' };

  t.match(find('agent.spawn', once.id), {
    source: 'orchestrator',
    data: {
      name: 'once',
      command: '/bin/sh',
      args: ['-c', 'exit 3'],
      cwd: 'once',
      envNames: ['GREETING'],
      limits: { processes: 8, cpu_seconds: 30 },
      sandbox,
      by: apiKey,
    },
  });
  t.match(find('agent.exit', once.id), {
    source: 'orchestrator',
    data: {
      name: 'once',
      state: 'failed',
      reason: 'failed',
      exitCode: 3,
      durationMs: Number,
      usage: { cpu_seconds: Number, processes: Number, peak_pss_bytes: Number },
      limits: { processes: 8 },
    },
  });
  t.match(find('agent.terminate', sleeper.id), { data: { name: 'sleeper', graceMs: 2000, by: apiKey } });
  t.match(find('agent.exit', sleeper.id), { data: { state: 'terminated', reason: 'terminated', signal: 'SIGTERM' } });
  t.match(find('agent.terminate', spinner.id), { data: { by: { kind: 'box', reason: 'limit:cpu' } } });
  t.match(find('agent.exit', spinner.id), { data: { state: 'terminated', reason: 'limit:cpu', limits: { cpu_seconds: 1 } } });
  t.ok((find('agent.exit', spinner.id).data['usage'] as { cpu_seconds: number }).cpu_seconds > 1, 'the CPU figure that ended it');
  t.notOk(find('agent.terminate', once.id), 'an agent that ended on its own was not terminated');

  const beadEvents = events.filter((e) => e.data['bead'] === bead.id);
  t.same(
    beadEvents.map((e) => e.kind),
    ['bead.open', 'bead.claimed', 'bead.closed'],
    'the bead: open, claimed, closed in order',
  );
  t.match(beadEvents[0], { source: 'beads', data: { bead: bead.id, kind: 'task', title: 'audit me', dependsOn: [], by: apiKey } });
  t.match(beadEvents[1], { data: { claimant: 'worker-1', by: apiKey } });
  t.match(beadEvents[2], { data: { outcome: 'success', by: { kind: 'nip98', pubkey: getPublicKey(operator) } } });
  const byWorker = { kind: 'agent', agent: worker.id, name: 'worker' };
  t.same(
    events.filter((e) => e.data['bead'] === agentBead).map((e) => [e.kind, e.data['by']]),
    [
      ['bead.open', byWorker],
      ['bead.claimed', byWorker],
    ],
    "the agent's own bead, by the agent",
  );
  t.match(
    events.find((e) => e.kind === 'sandbox.egress.policy'),
    { source: 'egress', data: { allow_domains: ['example.org', 'pypi.org'], allow_ports: [443], source: 'runtime', by: { kind: 'session', via: 'api-key' } } },
  );

  const text = JSON.stringify(events);
  t.notMatch(text, /value-never-recorded/, 'environment values are never recorded');
  t.notMatch(text, /the body stays out/, 'bead bodies are not recorded');
  t.notMatch(text, new RegExp(box.key), 'the API key is never recorded');
  t.notMatch(text, /abx_agent_/, 'agent tokens are never recorded');

  await live.next((m) => JSON.parse(m.data).kind === 'sandbox.egress.policy');
  const streamed = live.messages.map((m) => JSON.parse(m.data) as Stored);
  t.same(
    streamed.map((e) => e.seq),
    events.filter((e) => ['agent.exit', 'bead.closed', 'sandbox.egress.policy'].includes(e.kind)).map((e) => e.seq),
    'the live stream delivered the same events',
  );

  const report = await verifyEventLog(path.join(box.paths.stateDir, 'events'));
  t.match(report, { ok: true }, 'the chain verifies');
  t.ok(report.events >= events.length);
});

t.test('a critical events slot that cannot record refuses actions, and never stops a termination', async (t) => {
  const box = await startTestServer({ toml: adapters(['orchestrator', 'events']) });
  t.teardown(() => box.close());
  const sleeper = (await box.api('/v1/agents', { body: { name: 'sleeper', command: 'sleep', args: ['30'] } })).json['agent'] as Agent;
  t.ok(sleeper.id, 'spawned while the trail works');
  // The log directory disappears for good (a dangling link cannot be created again), and the slot degrades.
  const dir = path.join(box.paths.stateDir, 'events');
  rmSync(dir, { recursive: true, force: true });
  symlinkSync(path.join(box.paths.stateDir, 'gone', 'events'), dir);
  await waitFor('the events slot to degrade', () => box.server.app.agentbox.resolver.statuses().some((s) => s.slot === 'events' && s.state === 'degraded'));

  const refused = await box.api('/v1/agents', { body: { name: 'later', command: '/bin/true' } });
  t.equal(refused.status, 503);
  t.match(refused.json, { error: 'ABX_ERR_AUDIT_UNAVAILABLE', message: /adapters\.critical/ });
  t.same(
    ((await box.api('/v1/agents')).json['agents'] as Agent[]).map((a) => a.id),
    [sleeper.id],
    'nothing was started',
  );
  const bead = await box.api('/v1/beads', { body: { title: 'unrecorded' } });
  t.equal(bead.status, 503);
  t.match(bead.json, { error: 'ABX_ERR_AUDIT_UNAVAILABLE' });
  t.same((await box.api('/v1/beads')).json['items'], [], 'no bead was created');
  const stopped = await box.api(`/v1/agents/${sleeper.id}?graceMs=1000`, { method: 'DELETE' });
  t.equal(stopped.status, 200, 'terminating is never refused');
  t.match(stopped.json, { agent: { state: 'terminated' } });
});

t.test('critical: an agent whose start could not be recorded is ended at once', async (t) => {
  // No health check within the test: the slot is still healthy when the spawn is admitted, and the failed append is what degrades it.
  const box = await startTestServer({ toml: adapters(['orchestrator', 'events']), timing: { healthIntervalMs: 600_000 } });
  t.teardown(() => box.close());
  const events = box.server.app.agentbox.resolver.supervisors.get('events')!;
  // The log closes under the slot (as after a failed fsync): appends fail from now on.
  await events.adapter.close();
  t.equal(events.state, 'healthy', 'the slot does not know yet');
  const refused = await box.api('/v1/agents', { body: { name: 'unrecorded', command: 'sleep', args: ['30'] } });
  t.equal(refused.status, 503);
  t.match(refused.json, { error: 'ABX_ERR_AUDIT_UNAVAILABLE', message: /was ended at once/ });
  const agents = (await box.api('/v1/agents')).json['agents'] as Agent[];
  t.equal(agents.length, 1);
  t.match(agents[0], { name: 'unrecorded', state: 'terminated' }, 'the agent does not run');
  t.equal(events.state, 'degraded', 'the failed append degraded the slot');
  t.match((await box.api('/v1/beads', { body: { title: 'then nothing' } })).json, { error: 'ABX_ERR_AUDIT_UNAVAILABLE' });
});

t.test("a box that stops records its agents' ends before its event log closes", async (t) => {
  const root = await makeRoot();
  t.teardown(() => root.cleanup());
  // The first box keeps the root when it closes: the second reads the log it left.
  const kept = { ...root, cleanup: async () => undefined };
  const first = await startTestServer({ toml: adapters([]), root: kept });
  const sleepers = await Promise.all(
    ['one', 'two'].map(async (name) => (await first.api('/v1/agents', { body: { name, command: 'sleep', args: ['600'] } })).json['agent'] as Agent),
  );
  t.same(
    sleepers.map((a) => a.state),
    ['running', 'running'],
  );
  await first.close();
  const second = await startTestServer({ toml: adapters([]), root: kept });
  t.teardown(() => second.close());
  const events = await auditEvents(second);
  for (const agent of sleepers) {
    const kinds = events.filter((e) => e.data['agent'] === agent.id).map((e) => e.kind);
    t.same(kinds, ['agent.spawn', 'agent.terminate', 'agent.exit'], `${agent.id}: its spawn, the box's terminate and its exit`);
    t.match(events.find((e) => e.kind === 'agent.terminate' && e.data['agent'] === agent.id)?.data, { by: { kind: 'box', reason: 'shutdown' } });
  }
  t.match(await verifyEventLog(path.join(root.paths.stateDir, 'events')), { ok: true }, 'the chain verifies');
});
