// Transparency-log benchmark: durable appends with and without the Merkle tree in one run,
// inclusion and consistency proofs on a 1,000,000-entry tree file, and checkpoint signing.
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalJsonlEvents } from '../../management-api/src/adapters/events/local-jsonl.js';
import { LogCheckpoints } from '../../management-api/src/adapters/events/log-checkpoints.js';
import { readHashes } from '../../management-api/src/adapters/events/merkle-store.js';
import { formatCheckpoint } from '../../management-api/src/tlog/checkpoint.js';
import { proveConsistency, proveInclusion, treeRoot, type ReadNodes } from '../../management-api/src/tlog/prove.js';
import { verifyConsistency, verifyInclusion } from '../../management-api/src/tlog/proof-verify.js';
import { leafHash } from '../../management-api/src/tlog/rfc6962.js';
import { generateSignerKey, parseSignerKey, signNote } from '../../management-api/src/tlog/signed-note.js';
import { hashesToStore, storedHashIndex } from '../../management-api/src/tlog/stored-hashes.js';
import { ms, quantile, table } from './stats.js';

/** Appends per writer run; AGENTBOX_BENCH_EVENTS overrides. */
const N = Number(process.env['AGENTBOX_BENCH_EVENTS'] ?? 100_000);
/** Entries of the tree the proofs are taken from; AGENTBOX_BENCH_TREE overrides. */
const TREE = Number(process.env['AGENTBOX_BENCH_TREE'] ?? 1_000_000);
const CONCURRENCY = 512;
const ROUNDS = 2;
const PROOFS = 2_000;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const event = (i: number) => ({ kind: 'agent.tool.finished', source: `agent-${i % 16}`, data: { tool: 'shell', exitCode: 0, ms: i % 997 } });

/** N single-event appends from CONCURRENCY producers, each awaited until durable; events per second. */
async function appendRate(dir: string, merkle: boolean): Promise<number> {
  const events = new LocalJsonlEvents({ dir, ...(merkle ? { transparency: { keyFile: path.join(dir, 'key'), checkpointIntervalMs: 3_600_000 } } : {}) });
  await events.connect(AbortSignal.timeout(30_000));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        next++;
        await events.append([event(next)]);
      }
    }),
  );
  const elapsed = performance.now() - t0;
  await events.close();
  return (N / elapsed) * 1000;
}

/** A tree file of TREE synthetic entries, written as the store writes it. */
async function buildTree(file: string): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  const frontier: Buffer[] = [];
  let batch: Buffer[] = [];
  for (let i = 0; i < TREE; i++) {
    batch.push(...hashesToStore(i, leafHash(Buffer.from(`{"seq":${i + 1},"entry":"benchmark line ${i}"}`)), frontier));
    if (batch.length >= 65_536) {
      await handle.write(Buffer.concat(batch));
      batch = [];
    }
  }
  await handle.write(Buffer.concat(batch));
  await handle.close();
}

/** Latencies (ms) of `count` runs of `run`. */
async function timed(count: number, run: (i: number) => Promise<void> | void): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await run(i);
    out.push(performance.now() - t0);
  }
  return out;
}

/** Run the benchmark and return the report text and figures. */
export async function runTlogBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-tlog-bench-'));
  try {
    // Interleaved rounds, so load from elsewhere falls on both writers alike.
    const chained: number[] = [];
    const merkle: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      chained.push(await appendRate(path.join(dir, `chained-${r}`), false));
      merkle.push(await appendRate(path.join(dir, `merkle-${r}`), true));
    }
    const best = (xs: number[]) => Math.max(...xs);
    const ratio = best(merkle) / best(chained);

    const treeFile = path.join(dir, 'tree.hashes');
    const built = performance.now();
    await buildTree(treeFile);
    const buildMs = performance.now() - built;
    const handle = await open(treeFile, 'r');
    const read: ReadNodes = (nodes) =>
      readHashes(
        handle,
        nodes.map((n) => storedHashIndex(n.level, n.index)),
      );
    const size = TREE;
    const root = await treeRoot(size, read);
    // Sizes just below the full tree and across it, indices spread over the log.
    const sizeAt = (i: number) => size - ((i * 7919) % 1000);
    const inclusion = await timed(PROOFS, async (i) => {
      await proveInclusion((i * 104_729) % sizeAt(i), sizeAt(i), read);
    });
    const consistency = await timed(PROOFS, async (i) => {
      await proveConsistency(1 + ((i * 104_729) % (size - 1)), size, read);
    });
    // Spot checks: the proofs timed are proofs that verify.
    const check = await proveInclusion(123_457 % size, size, read);
    verifyInclusion(123_457 % size, size, check.leafHash, check.path, root);
    const from = Math.floor(size / 3);
    verifyConsistency(from, size, await treeRoot(from, read), root, (await proveConsistency(from, size, read)).path);
    await handle.close();

    const signer = parseSignerKey(generateSignerKey('agentbox/log/bench'));
    const signing = await timed(1_000, (i) => {
      signNote(formatCheckpoint({ origin: signer.name, size: size + i, root }), signer);
    });
    const keeper = await LogCheckpoints.open(dir, signer);
    const durable = await timed(100, async (i) => {
      await keeper.sign(size + i, root);
    });

    const rows = [
      ['append, hash chain only (today)', fmt(best(chained)), chained.map(fmt).join(' / '), ''],
      ['append, hash chain + Merkle tree', fmt(best(merkle)), merkle.map(fmt).join(' / '), `${ratio.toFixed(2)}× (≥ 0.80: ${ratio >= 0.8 ? 'yes' : 'NO'})`],
    ];
    const proofRows = [
      ['inclusion proof', ms(quantile(inclusion, 0.5)), ms(quantile(inclusion, 0.99)), quantile(inclusion, 0.99) <= 1 ? 'yes' : 'NO'],
      ['consistency proof', ms(quantile(consistency, 0.5)), ms(quantile(consistency, 0.99)), quantile(consistency, 0.99) <= 1 ? 'yes' : 'NO'],
      [
        'checkpoint signature (note + Ed25519)',
        ms(quantile(signing, 0.5)),
        ms(quantile(signing, 0.99)),
        quantile(signing, 0.99) <= 5 ? 'yes (≤ 5 ms)' : 'NO (≤ 5 ms)',
      ],
      ['checkpoint signed and kept (fsync of history and latest)', ms(quantile(durable, 0.5)), ms(quantile(durable, 0.99)), ''],
    ];
    const text = [
      `tlog: ${fmt(N)} single-event durable appends from ${CONCURRENCY} producers per writer, ${ROUNDS} interleaved rounds (files under ${path.dirname(dir)})`,
      table(['writer', 'best events/s', 'rounds', 'Merkle / chained'], rows),
      `proofs on a tree of ${fmt(TREE)} entries (tree file built directly in ${(buildMs / 1000).toFixed(1)} s, ${fmt((TREE * 2 * 32) / 1e6)} MB), ${fmt(PROOFS)} each, read with positioned reads from the file`,
      table(['operation', 'p50', 'p99', '≤ 1 ms'], proofRows),
    ].join('\n');
    return {
      text,
      json: {
        appendChainedPerSec: chained,
        appendMerklePerSec: merkle,
        ratio,
        inclusionP50Ms: quantile(inclusion, 0.5),
        inclusionP99Ms: quantile(inclusion, 0.99),
        consistencyP50Ms: quantile(consistency, 0.5),
        consistencyP99Ms: quantile(consistency, 0.99),
        signP50Ms: quantile(signing, 0.5),
        signP99Ms: quantile(signing, 0.99),
        signDurableP50Ms: quantile(durable, 0.5),
        signDurableP99Ms: quantile(durable, 0.99),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
