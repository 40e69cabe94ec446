// The embedded relay's settings read from real manifests, the ingress guard on real signed events,
// where agent events go, and the server in this process: its store on disk and its listen errors.
import t from 'tap';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { loadManifestSource, type NormalizedManifest } from '../../../management-api/src/manifest/load-manifest.js';
import { embeddedRelayUrl, listenError, relayConfig, RelayConfigError } from '../../../management-api/src/mesh/relay-config.js';
import { ingressGuard, ingressVerdict, type IngressRules } from '../../../management-api/src/mesh/relay-ingress.js';
import { startRelayServer } from '../../../management-api/src/mesh/relay-server.js';
import { publishTargets } from '../../../management-api/src/mesh/agent-events.js';

async function manifest(relay: string, mesh = 'enabled = true'): Promise<NormalizedManifest> {
  const r = await loadManifestSource(`[sovereign_mesh]\n${mesh}\n\n[sovereign_mesh.relay]\n${relay}\n`, { targetArch: 'x86_64', env: {} });
  if (!r.manifest) throw new Error(JSON.stringify(r.diagnostics));
  return r.manifest;
}

const secret = generateSecretKey();
const box = getPublicKey(secret);
const event = (kind = 1, key = generateSecretKey()) => finalizeEvent({ kind, created_at: 1_767_261_600, tags: [], content: 'x' }, key);

t.test('settings: read from the manifest, refused when the relay is off', async (t) => {
  const m = await manifest('enabled = true\nport = 7001\nbind = "0.0.0.0"\nexpose = true\ningress_policy = "signed-only"\nallowed_kinds = [1]');
  t.same(relayConfig(m), { bind: '0.0.0.0', port: 7001, policy: 'signed-only', allowedPubkeys: [], allowedKinds: [1] });
  t.equal(embeddedRelayUrl(m), 'ws://127.0.0.1:7001', 'a wildcard bind is reached on loopback');
  t.equal(embeddedRelayUrl(await manifest('enabled = true\nbind = "::1"')), 'ws://[::1]:7777', 'IPv6 is bracketed');
  const off = await manifest('enabled = false');
  t.throws(() => relayConfig(off), { name: 'RelayConfigError', key: 'sovereign_mesh.relay.enabled' });
  t.equal(embeddedRelayUrl(off), undefined);
});

t.test('AGENTBOX_RELAY_PORT moves the relay and the address the box publishes to; a malformed one names the variable', async (t) => {
  const m = await manifest('enabled = true\nport = 7001', 'enabled = true\npublish_agent_events = true');
  const env = { AGENTBOX_RELAY_PORT: '7444' };
  t.equal(relayConfig(m, env).port, 7444);
  t.equal(embeddedRelayUrl(m, env), 'ws://127.0.0.1:7444');
  t.same(publishTargets(m, env), ['ws://127.0.0.1:7444']);
  t.equal(relayConfig(m, { AGENTBOX_RELAY_PORT: '' }).port, 7001, 'empty: the manifest');
  t.throws(() => relayConfig(m, { AGENTBOX_RELAY_PORT: 'seven' }), {
    name: 'RelayConfigError',
    key: 'AGENTBOX_RELAY_PORT',
    message: /AGENTBOX_RELAY_PORT must be a port number/,
  });
});

t.test('agent events go to the listed relays and to the embedded one, each once', async (t) => {
  const both = await manifest('enabled = true\nport = 7002', 'enabled = true\npublish_agent_events = true\nrelays = ["wss://relay.example.com"]');
  t.same(publishTargets(both), ['wss://relay.example.com', 'ws://127.0.0.1:7002']);
  const listedToo = await manifest('enabled = true\nport = 7002', 'enabled = true\npublish_agent_events = true\nrelays = ["ws://127.0.0.1:7002"]');
  t.same(publishTargets(listedToo), ['ws://127.0.0.1:7002'], 'listing the embedded relay as well changes nothing');
  t.same(
    publishTargets(await manifest('enabled = false', 'enabled = true\nrelays = ["wss://r.example.com"]')),
    ['wss://r.example.com'],
    'no embedded relay: the list alone',
  );
});

t.test('ingress: policy, kinds and the box key', async (t) => {
  const rules = (r: Partial<IngressRules>): IngressRules => ({ policy: 'allowlist', allowedPubkeys: [], allowedKinds: [], boxPubkey: box, ...r });
  const friendKey = generateSecretKey();
  const friend = getPublicKey(friendKey);
  t.ok(ingressVerdict(event(1, secret), rules({})).canHandle, 'the box itself under allowlist');
  t.ok(ingressVerdict(event(1, friendKey), rules({ allowedPubkeys: [friend] })).canHandle, 'a listed key');
  t.match(ingressVerdict(event(), rules({})), { canHandle: false, message: /^blocked: ingress_policy "allowlist"/ });
  const forged = { ...event(), sig: event().sig };
  t.match(ingressVerdict(forged, rules({ policy: 'signed-only' })), { canHandle: false, message: /^blocked: ingress_policy "signed-only"/ });
  t.ok(ingressVerdict(event(), rules({ policy: 'signed-only' })).canHandle);
  t.ok(ingressVerdict(forged, rules({ policy: 'open' })).canHandle, 'open leaves the signature to the engine');
  t.match(
    ingressVerdict(event(7, secret), rules({ allowedKinds: [1] })),
    { canHandle: false, message: 'blocked: kind 7 is not in sovereign_mesh.relay.allowed_kinds (1)' },
    'kinds apply even to the box',
  );
  const refused: string[] = [];
  const guard = ingressGuard(rules({}), (e, message) => refused.push(`${e.kind}:${message.slice(0, 8)}`));
  await guard.beforeHandleEvent(event(3));
  await guard.beforeHandleEvent(event(1, secret));
  t.same(refused, ['3:blocked:'], 'each refusal is told once, acceptances are not');
});

t.test('listen errors name the key; other errors pass through', async (t) => {
  const at = { bind: '127.0.0.1', port: 7003 };
  const err = (code: string) => Object.assign(new Error(code), { code });
  t.match(listenError(err('EADDRINUSE'), at), { key: 'sovereign_mesh.relay.port', message: /7003 is already in use/ });
  t.match(listenError(err('EACCES'), at), { key: 'sovereign_mesh.relay.port', message: /permission denied.*E026/ });
  t.match(listenError(err('EADDRNOTAVAIL'), at), { key: 'sovereign_mesh.relay.bind' });
  const other = err('EMFILE');
  t.equal(listenError(other, at), other);
});

t.test('the server in this process: store on disk, a taken port refused by name, clean close', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-relay-unit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const logger = pino({ level: 'silent' });
  const config = { bind: '127.0.0.1', port: 0, policy: 'open' as const, allowedPubkeys: [], allowedKinds: [] };
  const databaseFile = path.join(dir, 'state', 'relay-events.db');
  const first = await startRelayServer({ config, boxPubkey: box, databaseFile, logger });
  t.ok(first.port > 0, 'listens');
  t.ok(existsSync(databaseFile), 'its store is created, directory included');
  const second = startRelayServer({ config: { ...config, port: first.port }, boxPubkey: box, databaseFile: path.join(dir, 'other.db'), logger });
  await t.rejects(second, RelayConfigError, 'the same port again');
  await first.close();
});
