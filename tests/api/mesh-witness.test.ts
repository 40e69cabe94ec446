// The mesh host as witness, against the real API with signed member calls: a member's checkpoints
// are cosigned as its log grows (checked with the witness key of /v1/meta); a forked checkpoint is
// refused and flagged in the member list and metrics; neither registering again nor a new log key
// clears the flag; a member cannot clear it, an operator can. Then the witness record in both
// registries (SQLite and a real Postgres) as a unit: compare-and-set, flags kept, reset.
import t, { type Test } from 'tap';
import { formatCheckpoint } from '../../management-api/src/tlog/checkpoint.js';
import { parseCosignatureVerifier, verifyCosignature } from '../../management-api/src/tlog/cosignature.js';
import { leafHash, nodeHash, EMPTY_ROOT } from '../../management-api/src/tlog/rfc6962.js';
import { generateSignerKey, parseSignerKey, signNote } from '../../management-api/src/tlog/signed-note.js';
import { PostgresRegistry } from '../../management-api/src/mesh/host/postgres-registry.js';
import { SqliteRegistry } from '../../management-api/src/mesh/host/sqlite-registry.js';
import type { MeshRegistry } from '../../management-api/src/mesh/host/registry.js';
import { startPostgres } from '../helpers/postgres.js';
import { ALL_OFF, makeRoot, startTestServer } from './support/harness.js';
import { beatBody, TestMember } from './support/mesh-member.js';

const k = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return EMPTY_ROOT;
  if (d.length === 1) return d[0]!;
  return nodeHash(mth(d.slice(0, k(d.length))), mth(d.slice(k(d.length))));
}
function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))] : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}
const leaves = (n: number): Buffer[] => Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`entry ${i}`)));

const alice = new TestMember();
const log = parseSignerKey(generateSignerKey('agentbox/log/a11ce0000000000a'));
const checkpointOf = (tree: Buffer[]): string => signNote(formatCheckpoint({ origin: log.name, size: tree.length, root: mth(tree) }), log);

t.test('the host cosigns a growing log and flags a fork', async (t) => {
  const box = await startTestServer({ toml: `${ALL_OFF}[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${alice.identity.npub}"]\n` });
  t.teardown(() => box.close());
  const base = box.server.apiUrl;
  const meta = (await box.api('/v1/meta')).json as { federation: { witness: { verifierKey: string } } };
  const witnessKey = meta.federation.witness.verifierKey;
  t.match(witnessKey, /^agentbox\/witness\/[0-9a-f]{16}\+[0-9a-f]{8}\+B[A-P]/, '/v1/meta publishes the witness key (type 0x04)');
  const verifier = parseCosignatureVerifier(witnessKey);

  const reg = await alice.register(base, { event_log: { verifier_key: log.verifierKey } });
  t.equal(reg.status, 201);
  t.same(
    reg.json['witness'],
    { verifier_key: witnessKey, outcome: 'none', size: null, root: null, flagged: false },
    'the registration answer names the witness key',
  );
  const heartbeat = (reg.json['endpoints'] as Record<string, string>)['heartbeat']!;
  const beat = async (witness?: Record<string, unknown>) =>
    (await alice.call('POST', heartbeat, { ...beatBody(), ...(witness ? { witness } : {}) })).json['witness'] as Record<string, unknown>;

  const tree = leaves(40);
  const first = await beat({ checkpoint: checkpointOf(tree.slice(0, 10)) });
  t.match(first, {
    outcome: 'cosigned',
    size: 10,
    root: mth(tree.slice(0, 10)).toString('base64'),
    cosignature: /^— agentbox\/witness\/[0-9a-f]{16} \S+$/,
    flagged: false,
  });
  const cosigned = `${checkpointOf(tree.slice(0, 10))}${first['cosignature']}\n`;
  t.match(verifyCosignature(cosigned, verifier), { witness: verifier.name, timestamp: Number }, 'the cosignature verifies with the witness key of /v1/meta');

  t.match(
    await beat({ checkpoint: checkpointOf(tree.slice(0, 25)) }),
    { outcome: 'proof-needed', size: 10, message: /from size 10/ },
    'grown without a proof: one is asked for',
  );
  t.match(
    await beat({
      checkpoint: checkpointOf(tree.slice(0, 25)),
      proof: { from: 10, path: subproof(10, tree.slice(0, 25), true).map((h) => h.toString('base64')) },
    }),
    { outcome: 'cosigned', size: 25 },
  );
  t.match(await beat(), { outcome: 'none', size: 25 }, 'a heartbeat without an offer answers the state');

  const forked = [...tree.slice(0, 25)];
  forked[4] = leafHash(Buffer.from('rewritten'));
  t.match(
    await beat({ checkpoint: checkpointOf(forked) }),
    { outcome: 'refused', reason: 'fork', flagged: true, size: 25 },
    'another root for size 25 is refused',
  );
  t.notOk((await beat({ checkpoint: checkpointOf(tree.slice(0, 25)) }))['cosignature'], 'nothing more is cosigned, not even the true checkpoint');

  const members = async () =>
    ((await box.api('/v1/mesh/members')).json['members'] as Array<Record<string, unknown>>).find((m) => m['pubkey'] === alice.identity.pubkey)!;
  t.match(
    (await members())['witness'],
    { state: 'inconsistent', reason: 'fork', detail: /two roots for size 25/, flagged_at: String, size: 25, log_key: log.verifierKey },
    'flagged in the member list',
  );
  const metrics = await (await fetch(box.server.metricsUrl)).text();
  t.match(metrics, /agentbox_mesh_witness_refusals_total\{reason="fork"\} 1/);
  t.match(metrics, /agentbox_mesh_witness_refusals_total\{reason="flagged"\} 1/);
  t.match(metrics, /agentbox_mesh_witness_flagged_members 1/);
  t.match(metrics, /agentbox_mesh_witness_offers_total\{outcome="cosigned"\} 2/);

  // Registering again (with a new log identity, even) does not clear the flag.
  const fresh = parseSignerKey(generateSignerKey('agentbox/log/a11ce0000000000b'));
  const again = await alice.register(base, { event_log: { verifier_key: fresh.verifierKey } });
  t.match(again.json['witness'], { flagged: true, size: 25 }, 'registered again: still flagged');
  t.match((await members())['witness'], { state: 'inconsistent', reason: 'fork', log_key: log.verifierKey }, 'the pinned key stays');

  const clear = `/v1/mesh/members/${alice.identity.pubkey}/witness`;
  t.equal((await alice.call('DELETE', `${base}${clear}`)).status, 401, "a member's own signature cannot clear it");
  t.equal((await box.api(clear, { method: 'DELETE', auth: false })).status, 401);
  t.equal((await box.api(clear, { method: 'DELETE' })).status, 204, 'the operator clears it');
  t.equal((await box.api(clear, { method: 'DELETE' })).status, 404, 'nothing left to clear');
  t.match((await members())['witness'], { state: 'none', size: null }, 'listed as witnessed afresh');
  t.match(await (await fetch(box.server.metricsUrl)).text(), /agentbox_mesh_witness_flagged_members 0/);
  const session = (again.json['endpoints'] as Record<string, string>)['heartbeat']!;
  const restart = await alice.call('POST', session, {
    ...beatBody(),
    witness: { checkpoint: signNote(formatCheckpoint({ origin: fresh.name, size: 3, root: mth(leaves(3)) }), fresh), verifier_key: fresh.verifierKey },
  });
  t.match(restart.json['witness'], { outcome: 'cosigned', size: 3 }, 'the next offer is cosigned under the key it carries');
  t.ok(
    box.logs.events('MeshWitnessRefused').some((e) => e['reason'] === 'fork'),
    'the refusal was logged',
  );
});

async function registryContract(t: Test, registry: MeshRegistry): Promise<void> {
  const pk = 'ab'.repeat(32);
  const at = '2026-03-01T10:00:00.000Z';
  const cp = (size: number) => ({ origin: 'agentbox/log/x', size, root: `root-${size}`, note: `note ${size}\n`, at });
  t.equal(await registry.witness(pk), undefined);
  t.match(await registry.pinLogKey(pk, 'key-1'), { logKey: 'key-1', cosigned: null, flag: null });
  t.match(await registry.pinLogKey(pk, 'key-2'), { logKey: 'key-2' }, 'before a cosignature a new key replaces the pinned one');
  t.ok(await registry.recordCosigned(pk, null, 'key-2', cp(5)));
  t.notOk(await registry.recordCosigned(pk, null, 'key-2', cp(6)), 'compare and set: not from a stale previous');
  t.ok(await registry.recordCosigned(pk, { size: 5, root: 'root-5' }, 'key-2', cp(9)));
  t.match(
    await registry.pinLogKey(pk, 'key-3'),
    { logKey: 'key-2', cosigned: { size: 9, root: 'root-9', note: 'note 9\n', at } },
    'after a cosignature the key stays',
  );
  await registry.flagWitness(pk, { reason: 'fork', detail: 'first', at });
  await registry.flagWitness(pk, { reason: 'shrunk', detail: 'second', at });
  t.match(await registry.witness(pk), { flag: { reason: 'fork', detail: 'first', at } }, 'the first flag stands');
  t.notOk(await registry.recordCosigned(pk, { size: 9, root: 'root-9' }, 'key-2', cp(12)), 'nothing recorded while flagged');
  t.equal(await registry.flaggedCount(), 1);
  t.ok(await registry.clearWitness(pk));
  t.notOk(await registry.clearWitness(pk));
  t.equal(await registry.flaggedCount(), 0);
  t.equal(await registry.witness(pk), undefined);
}

t.test('the witness record in the SQLite registry', async (t) => {
  const root = await makeRoot();
  t.teardown(() => root.cleanup());
  const registry = new SqliteRegistry(`${root.dir}/registry.sqlite`, () => new Date());
  await registry.open();
  t.teardown(() => registry.close());
  await registryContract(t, registry);
});

t.test('the witness record in the Postgres registry', async (t) => {
  const cluster = await startPostgres();
  t.teardown(() => cluster.stop());
  const registry = new PostgresRegistry(cluster.url);
  t.teardown(() => registry.close());
  await registry.open();
  await registryContract(t, registry);
});
