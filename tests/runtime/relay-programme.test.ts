// The embedded relay programme, run as its real process (config/bin/agentbox-relay) on a box root
// of its own and used by real Nostr clients: every ingress policy, allowed_kinds, events kept in
// SQLite on the state volume across a restart, bind and port, and start-up errors naming the key.
import t, { type Test } from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { freePort } from '../runtime-contract/support/box-runner.js';
import { author, publish, query, relayManifest, relayRoot, signed, startRelayProgramme, type RelayRun } from './support/relay-process.js';
import { getPublicKey } from 'nostr-tools/pure';
import { hexToBytes } from 'nostr-tools/utils';

/** Start a relay with these [sovereign_mesh.relay] lines on a free port; stopped and removed at teardown. */
async function relayWith(t: Test, lines: string): Promise<{ run: RelayRun; url: string; port: number; root: string }> {
  const port = await freePort();
  const box = relayRoot(relayManifest(`port = ${port}\n${lines}`));
  const run = startRelayProgramme(box.root);
  t.teardown(async () => {
    await run.stop();
    box.cleanup();
  });
  await run.listening;
  return { run, url: `ws://127.0.0.1:${port}`, port, root: box.root };
}

/** The box's own public key, from the identity key the programme read (created under the root). */
const boxPubkey = (run: RelayRun): string => getPublicKey(hexToBytes(readFileSync(run.paths.identityKeyFile, 'utf8').trim()));

/** An event whose signature does not match its id (a forgery). */
function forged(kind = 1) {
  const e = signed(author(), kind);
  const other = signed(author(), kind);
  return { ...e, sig: other.sig };
}

t.test('allowlist: the listed keys and the box itself are accepted, anyone else is blocked naming the policy', async (t) => {
  const friend = author();
  const { run, url } = await relayWith(t, `ingress_policy = "allowlist"\nallowed_pubkeys = ["${friend.pubkey}"]`);
  const fromFriend = signed(friend);
  t.same(await publish(url, fromFriend), { ok: true, message: '' }, 'a listed key');
  const stranger = await publish(url, signed(author()));
  t.equal(stranger.ok, false, 'a key not on the list is refused');
  t.match(
    stranger.message,
    /^blocked: ingress_policy "allowlist" accepts only .*sovereign_mesh\.relay\.allowed_pubkeys/,
    'NIP-01 "blocked:" naming the policy and the key',
  );
  const own = hexToBytes(readFileSync(run.paths.identityKeyFile, 'utf8').trim());
  const fromBox = signed({ secret: own, pubkey: boxPubkey(run) });
  t.equal((await publish(url, fromBox)).ok, true, "the box's own key is always accepted");
  const forgedFriend = { ...signed(friend), sig: signed(author()).sig };
  const refused = await publish(url, forgedFriend);
  t.equal(refused.ok, false, 'a listed key with a wrong signature is still refused');
  t.match(refused.message, /^invalid:/, 'by the engine, which checks every signature');
  t.same(
    (await query(url, [fromFriend.id, fromBox.id, forgedFriend.id])).map((e) => e.id).sort(),
    [fromFriend.id, fromBox.id].sort(),
    'only the accepted events are stored',
  );
});

t.test('signed-only: any validly signed event is accepted, a forged one is blocked naming the policy', async (t) => {
  const { url } = await relayWith(t, `ingress_policy = "signed-only"`);
  const anyone = signed(author());
  t.equal((await publish(url, anyone)).ok, true, 'an unknown author with a valid signature');
  const bad = forged();
  const refused = await publish(url, bad);
  t.equal(refused.ok, false);
  t.match(refused.message, /^blocked: ingress_policy "signed-only" accepts only validly signed events/, "refused in the policy's name");
  t.same(
    (await query(url, [anyone.id, bad.id])).map((e) => e.id),
    [anyone.id],
    'the forgery is not stored',
  );
});

t.test('open: any author; what the engine refuses (a wrong signature) stays refused', async (t) => {
  const { url } = await relayWith(t, `ingress_policy = "open"`);
  const anyone = signed(author(), 30_000 + 7);
  t.equal((await publish(url, anyone)).ok, true, 'an unknown author, any kind');
  const refused = await publish(url, forged());
  t.equal(refused.ok, false);
  t.match(refused.message, /^invalid: signature is wrong/, 'not blocked by policy, refused by the engine');
});

t.test('allowed_kinds: other kinds are blocked naming the key; empty accepts every kind', async (t) => {
  const { url } = await relayWith(t, `ingress_policy = "open"\nallowed_kinds = [1, 4750]`);
  const who = author();
  t.equal((await publish(url, signed(who, 4750))).ok, true, 'a listed kind');
  const other = await publish(url, signed(who, 7));
  t.equal(other.ok, false, 'a kind not listed');
  t.match(other.message, /^blocked: kind 7 is not in sovereign_mesh\.relay\.allowed_kinds \(1, 4750\)/);
  const all = await relayWith(t, `ingress_policy = "open"`);
  t.equal((await publish(all.url, signed(who, 7))).ok, true, 'allowed_kinds = [] accepts kind 7');
});

t.test('events are stored in SQLite on the state volume and survive a restart of the programme', async (t) => {
  const port = await freePort();
  const box = relayRoot(relayManifest(`port = ${port}\ningress_policy = "signed-only"`));
  t.teardown(box.cleanup);
  const url = `ws://127.0.0.1:${port}`;
  const first = startRelayProgramme(box.root);
  await first.listening;
  const kept = signed(author());
  t.equal((await publish(url, kept)).ok, true);
  t.equal(await first.stop(), 0, 'SIGTERM stops it cleanly (exit 0)');
  t.ok(existsSync(box.paths.relayDatabase), `the store is ${box.paths.relayDatabase}`);
  t.ok(box.paths.relayDatabase.startsWith(`${box.paths.stateDir}/`), 'under the state directory');

  const second = startRelayProgramme(box.root);
  t.teardown(() => second.stop());
  await second.listening;
  t.same(
    (await query(url, [kept.id])).map((e) => e.id),
    [kept.id],
    'the event is served after the restart',
  );
});

t.test('bind and port: it listens where the manifest says, and nowhere else', async (t) => {
  const { run, port } = await relayWith(t, `bind = "127.0.0.2"\ningress_policy = "signed-only"`);
  t.match(run.output(), new RegExp(`"bind":"127.0.0.2","port":${port}`), 'announces the bind and port');
  t.equal((await publish(`ws://127.0.0.2:${port}`, signed(author()))).ok, true, 'reachable on the bound address');
  await t.rejects(publish(`ws://127.0.0.1:${port}`, signed(author())), 'not on another loopback address');
});

t.test('start-up errors name the manifest key and the fix', async (t) => {
  const taken = await relayWith(t, 'ingress_policy = "signed-only"');
  const cases: Array<[string, string, RegExp]> = [
    ['a port in use', relayManifest(`port = ${taken.port}`), new RegExp(`sovereign_mesh\\.relay\\.port ${taken.port} is already in use`)],
    [
      "an address that is not the host's",
      relayManifest(`port = ${await freePort()}\nbind = "192.0.2.1"`),
      /sovereign_mesh\.relay\.bind "192\.0\.2\.1" is not an address of this host/,
    ],
    [
      'the relay turned off',
      relayManifest('').replace('[sovereign_mesh.relay]\nenabled = true', '[sovereign_mesh.relay]\nenabled = false'),
      /sovereign_mesh\.relay\.enabled is false/,
    ],
    [
      'an invalid manifest',
      relayManifest('ingress_policy = "closed"'),
      /at sovereign_mesh\.relay\.ingress_policy: `sovereign_mesh\.relay\.ingress_policy` must be one of/,
    ],
  ];
  for (const [what, manifest, message] of cases) {
    const box = relayRoot(manifest);
    t.teardown(box.cleanup);
    const run = startRelayProgramme(box.root);
    t.equal(await run.exit, 1, `${what}: exits 1`);
    t.match(run.output(), message, `${what}: says which key`);
  }
});
