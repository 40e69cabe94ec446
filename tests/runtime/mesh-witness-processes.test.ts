// The mesh host as witness, with real processes: a host box and a member box (`agentbox up --local`,
// each its own root, identity and keys). The member's event log grows, it offers its checkpoints
// with heartbeats and keeps the host's cosignatures, which verify with the witness key of the host's
// /v1/meta (`agentbox events verify --against … --witness-key …`, `agentbox audit`). Then the member
// is stopped, its log rewritten and re-chained, its tree and checkpoints removed so that it signs a
// new, inconsistent checkpoint with its own key; restarted, it is refused a cosignature and flagged
// in the host's member list and metrics.
import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { freePort } from '../runtime-contract/support/box-runner.js';
import { waitFor } from '../helpers/wait.js';
import { runAgentbox } from '../helpers/cli.js';
import { decodeLine, encodeLine, GENESIS_HASH, toStored } from '../../management-api/src/adapters/events/hash-chain.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { parseCosignatureVerifier, verifyCosignature } from '../../management-api/src/tlog/cosignature.js';
import { apiKeyOf, identityOf, startLocalBox, type LocalBox } from './support/local-box.js';

/** The least interval rule E020 allows. */
const INTERVAL_SEC = 5;
const OFF_BUT_EVENTS = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\ncritical = []\n`;

interface WitnessView {
  state: string;
  size: number | null;
  root: string | null;
  reason?: string;
  detail?: string;
  flagged_at?: string;
}

t.test('a host cosigns its member’s log, then refuses the rewritten log', { timeout: 300_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-witness-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const root = (name: string): string => path.join(work, name, '.agentbox');
  for (const name of ['host', 'alice']) mkdirSync(path.join(work, name), { recursive: true });
  const aliceId = await identityOf(root('alice'));
  const ports = { host: [await freePort(), await freePort()], alice: [await freePort(), await freePort()] } as const;
  const hostUrl = `http://127.0.0.1:${ports.host[0]}`;
  const manifest = (name: 'host' | 'alice', body: string): string => {
    const file = path.join(work, name, 'agentbox.toml');
    writeFileSync(
      file,
      `[agentbox]\nname = "${name}"\n\n${OFF_BUT_EVENTS}\n[audit]\ncheckpoint_interval_sec = 1\n\n[api]\nport = ${ports[name][0]}\n\n[observability]\nmetrics_port = ${ports[name][1]}\n\n[mesh]\n${body}`,
    );
    return file;
  };
  const files = {
    host: manifest('host', `mode = "host"\nheartbeat_interval_sec = ${INTERVAL_SEC}\nallowed_pubkeys = ["${aliceId.npub}"]\n`),
    alice: manifest('alice', `mode = "client"\nhost_url = "${hostUrl}"\n`),
  };
  let runs = 0;
  const boxes = new Set<LocalBox>();
  const start = (name: 'host' | 'alice'): LocalBox => {
    const box = startLocalBox({ manifestFile: files[name], root: root(name), apiPort: ports[name][0], logFile: path.join(work, `${name}-${++runs}.log`) });
    boxes.add(box);
    return box;
  };
  t.teardown(async () => {
    await Promise.all([...boxes].map((b) => b.killHard().catch(() => {})));
  });

  const host = start('host');
  let alice = start('alice');
  await Promise.all([host.ready(), alice.ready()]);
  const hostKey = apiKeyOf(root('host'));
  const aliceKey = apiKeyOf(root('alice'));
  const witnessKey = (
    (await (await fetch(`${hostUrl}/v1/meta`, { headers: { authorization: `Bearer ${hostKey}` } })).json()) as {
      federation: { witness: { verifierKey: string } };
    }
  ).federation.witness.verifierKey;
  const verifier = parseCosignatureVerifier(witnessKey);
  const member = async (): Promise<{ witness: WitnessView } | undefined> => {
    const res = await fetch(`${hostUrl}/v1/mesh/members`, { headers: { authorization: `Bearer ${hostKey}` } });
    const list = ((await res.json()) as { members: Array<{ pubkey: string; witness: WitnessView }> }).members;
    return list.find((m) => m.pubkey === aliceId.pubkey);
  };
  const append = async (n: number, note: string): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${alice.apiUrl}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${aliceKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'test.note', data: { note, i } }),
      });
      if (res.status !== 201) throw new Error(`POST /v1/events: ${res.status} ${await res.text()}`);
    }
  };
  const eventsDir = path.join(runtimePaths({ AGENTBOX_ROOT: root('alice') }).stateDir, 'events');
  const cosignatures = (): Array<{ size: number; root: string; note: string; witness: string }> => {
    try {
      return readFileSync(path.join(eventsDir, 'tlog/cosignatures.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  const cosignedSize = async (atLeast: number): Promise<number> =>
    waitFor(
      `the host to cosign size ${atLeast} or more`,
      async () => {
        const w = (await member())?.witness;
        return w?.state === 'cosigned' && (w.size ?? 0) >= atLeast ? w.size! : undefined;
      },
      60_000,
      250,
    );

  await append(5, 'first');
  const first = await cosignedSize(5);
  await append(4, 'second');
  // Past the first size cosigned: the member's offer carries a consistency proof from it.
  const second = await cosignedSize(first + 4);
  t.ok(second > first, `cosigned at size ${first}, then at ${second} with a consistency proof`);
  const kept = await waitFor('the member to keep the cosignature', () => cosignatures().find((c) => c.size === second), 15_000, 100);
  t.match(
    verifyCosignature(kept.note, verifier),
    { witness: verifier.name },
    "the member's kept checkpoint carries a cosignature that verifies with the host's published key",
  );
  t.equal(kept.witness, verifier.name);
  const health = ((await (await fetch(`${alice.apiUrl}/health`)).json()) as { federation: { witness: Record<string, unknown> } }).federation.witness;
  t.match(health, { hostKey: witnessKey, size: second, flagged: false }, "the member's /health shows the witness");

  // The cosigned note from the member's file is evidence another machine can check the log with.
  const cosignedFile = path.join(work, 'cosigned-checkpoint');
  writeFileSync(cosignedFile, kept.note);
  const verified = runAgentbox(['events', 'verify', '--root', root('alice'), '--against', cosignedFile, '--witness-key', witnessKey]);
  t.equal(verified.code, 0, verified.stderr);
  t.match(verified.stdout, new RegExp(`witnessed: cosigned by ${verifier.name.replace(/\//g, '\\/')} at \\S+ \\(cosignature verified\\)`));
  const otherWitness = 'agentbox/witness/0000000000000000+00000000+BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  t.equal(
    runAgentbox(['events', 'verify', '--root', root('alice'), '--against', cosignedFile, '--witness-key', otherWitness]).code,
    2,
    'another witness key: not witnessed, exit 2',
  );
  const audit = JSON.parse(runAgentbox(['audit', '--root', root('alice'), '--json']).stdout) as {
    checkpoints: Array<{ size: number; witnesses: unknown[]; logMatches: boolean }>;
  };
  t.match(
    audit.checkpoints.find((c) => c.size === second),
    { witnesses: [{ witness: verifier.name }], logMatches: true },
    '`agentbox audit` shows the checkpoint witnessed',
  );

  // Rewrite history: stop the member, change entry 2, re-chain, add two entries, and drop the tree
  // and checkpoints so that the box itself signs a checkpoint of the rewritten log with its key.
  const before = (await member())!.witness;
  t.equal(await alice.stop(), 0, 'the member stops');
  t.notOk(await member(), 'deregistered: no longer listed (its witness record stays with the host)');
  const segments = readdirSync(eventsDir)
    .filter((f) => /^events-\d+\.jsonl$/.test(f))
    .sort();
  let prev = GENESIS_HASH;
  let last: ReturnType<typeof toStored> | undefined;
  for (const file of segments) {
    const out = readFileSync(path.join(eventsDir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((text) => {
        const e = toStored(decodeLine(text));
        if (e.seq === 2) e.data = { note: 'rewritten' };
        const { line, hash } = encodeLine(prev, e);
        prev = hash;
        last = e;
        return line;
      });
    if (file === segments[segments.length - 1]) {
      for (let i = 1; i <= 2; i++) {
        const { line, hash } = encodeLine(prev, { ...last!, id: randomUUID(), seq: last!.seq + i, data: { note: 'appended while stopped' } });
        prev = hash;
        out.push(line);
      }
    }
    writeFileSync(path.join(eventsDir, file), out.join(''));
  }
  for (const f of ['tree.hashes', 'checkpoint', 'checkpoints.jsonl']) rmSync(path.join(eventsDir, 'tlog', f), { force: true });
  t.equal(runAgentbox(['events', 'verify', '--root', root('alice')]).code, 0, 'the rewritten chain verifies on its own');

  alice = start('alice');
  await alice.ready();
  const flagged = await waitFor(
    'the host to flag the member',
    async () => {
      const w = (await member())?.witness;
      return w?.state === 'inconsistent' ? w : undefined;
    },
    60_000,
    250,
  );
  t.match(
    flagged,
    {
      state: 'inconsistent',
      reason: 'inconsistent',
      detail: new RegExp(`not consistent with size ${before.size}`),
      flagged_at: String,
      size: before.size,
      root: before.root,
    },
    'flagged in the member list; the last cosigned checkpoint is kept',
  );
  const metrics = await (await fetch(`http://127.0.0.1:${ports.host[1]}/metrics`)).text();
  t.match(metrics, /agentbox_mesh_witness_refusals_total\{reason="inconsistent"\} 1/, 'the refusal is counted');
  t.match(metrics, /agentbox_mesh_witness_flagged_members 1/, 'the flagged member is counted');
  t.notOk(
    cosignatures().some((c) => c.size > second),
    'the member holds no cosignature past the rewrite',
  );
  const aliceHealth = await waitFor(
    'the member to see the refusal',
    async () => {
      const w = ((await (await fetch(`${alice.apiUrl}/health`)).json()) as { federation: { witness: Record<string, unknown> } }).federation.witness;
      return w['flagged'] === true ? w : undefined;
    },
    15_000,
    200,
  );
  t.match(aliceHealth, { lastOutcome: 'refused', flagged: true });
  t.ok(
    await waitFor(
      'the refusal in the host log',
      () => host.events().some((e) => e.event === 'MeshWitnessRefused' && e['reason'] === 'inconsistent') || undefined,
      15_000,
      100,
    ),
    'the host logged MeshWitnessRefused',
  );
  const stray = JSON.parse(runAgentbox(['audit', '--root', root('alice'), '--json']).stdout) as { strayCosignatures: Array<{ size: number }> };
  t.ok(
    stray.strayCosignatures.some((s) => s.size === second),
    '`agentbox audit` lists the cosignatures of the history that is gone as stray',
  );
});
