// Events benchmark: durable appends with group commit on local-jsonl, side by side with raw
// append+fsync per line and per batch of lines of the same size, on the same filesystem.
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalJsonlEvents } from '../../management-api/src/adapters/events/local-jsonl.js';
import { verifyEventLog } from '../../management-api/src/adapters/events/log-verify.js';
import { ms, quantile, table } from './stats.js';

/** Events in the group-commit run; AGENTBOX_BENCH_EVENTS overrides. */
const N = Number(process.env['AGENTBOX_BENCH_EVENTS'] ?? 200_000);
/** Appends in flight at once (many agents and routes appending concurrently). */
const CONCURRENCY = 512;
/** The pass mark of the issue. */
const TARGET = 20_000;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const event = (i: number) => ({ kind: 'agent.tool.finished', source: `agent-${i % 16}`, data: { tool: 'shell', exitCode: 0, ms: i % 997 } });

/** `CONCURRENCY` producers each appending one event at a time until N are durable. */
async function groupCommit(dir: string): Promise<{ rate: number; latencies: number[]; flushes: number }> {
  const events = new LocalJsonlEvents({ dir });
  await events.connect(AbortSignal.timeout(10_000));
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const i = next++;
        const started = performance.now();
        await events.append([event(i)]);
        latencies.push(performance.now() - started);
      }
    }),
  );
  const elapsed = performance.now() - t0;
  const flushes = events.stats()!.flushes;
  await events.close();
  const report = await verifyEventLog(dir);
  if (!report.ok || report.events !== N) throw new Error(`the benchmark log does not verify: ${JSON.stringify(report.firstBad)}`);
  return { rate: (N / elapsed) * 1000, latencies, flushes };
}

/** Raw write()+fdatasync() of `lines` lines, `perSync` lines per write. */
function rawFsync(file: string, line: string, lines: number, perSync: number): number {
  const fd = openSync(file, 'a');
  const chunk = Buffer.from(line.repeat(perSync));
  const t0 = performance.now();
  for (let written = 0; written < lines; written += perSync) {
    writeSync(fd, chunk);
    fdatasyncSync(fd);
  }
  const elapsed = performance.now() - t0;
  closeSync(fd);
  return (lines / elapsed) * 1000;
}

/** Run the events benchmark and return the report text. */
export async function runEventsBench(): Promise<string> {
  const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-events-bench-'));
  try {
    const gc = await groupCommit(path.join(dir, 'log'));
    // A line of the size the log writes (the same event with its seq, id, time and hashes).
    const line = `${JSON.stringify({ seq: 123456, id: randomUUID(), time: new Date().toISOString(), ...event(7), prev: 'f'.repeat(64), hash: 'e'.repeat(64) })}\n`;
    const perLine = rawFsync(path.join(dir, 'per-line.jsonl'), line, 2_000, 1);
    const perBatch = rawFsync(path.join(dir, 'per-batch.jsonl'), line, N, 100);
    const perBig = rawFsync(path.join(dir, 'per-big-batch.jsonl'), line, N, 1_000);
    const rows = [
      ['local-jsonl append, group commit (hash chain, durable)', fmt(gc.rate), gc.rate >= TARGET ? 'yes' : 'NO'],
      ['raw write+fdatasync per line', fmt(perLine), ''],
      ['raw write+fdatasync per 100 lines', fmt(perBatch), ''],
      ['raw write+fdatasync per 1,000 lines', fmt(perBig), ''],
    ];
    return [
      `events: ${fmt(N)} single-event appends from ${CONCURRENCY} concurrent producers; each resolves only after its fdatasync (files under ${path.dirname(dir)}); lines of ${line.length} bytes`,
      table(['writer', 'events/s', `≥ ${fmt(TARGET)}/s`], rows),
      `group commit: ${fmt(gc.flushes)} fsync rounds for ${fmt(N)} appends (${(N / gc.flushes).toFixed(1)} events per fsync); append latency p50 ${ms(quantile(gc.latencies, 0.5))}, p99 ${ms(quantile(gc.latencies, 0.99))}; the log verified afterwards`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
