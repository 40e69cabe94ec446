// A process that appends events as fast as it can and reports each acknowledged one on stdout,
// to be killed with SIGKILL mid-stream. Usage: node events-kill-appender.ts <log-dir> <max-file-bytes>
import { LocalJsonlEvents } from '../../management-api/src/adapters/events/local-jsonl.js';

const [dir, maxFileBytes] = process.argv.slice(2) as [string, string];
const events = new LocalJsonlEvents({ dir, maxFileBytes: Number(maxFileBytes) });
await events.connect(AbortSignal.timeout(10_000));
process.stdout.write('ready\n');

// Keep many appends in flight so batches are large and the kill lands inside a group commit.
let n = 0;
const inFlight = 64;
async function appender(): Promise<void> {
  for (;;) {
    const size = 1 + (n % 3);
    const batch = Array.from({ length: size }, () => ({ kind: 'fault.kill', source: `pid-${process.pid}`, data: { n: n++, pad: 'x'.repeat(n % 200) } }));
    const stored = await events.append(batch);
    // Reported only after the append resolved; a report still buffered at the kill is simply not counted.
    process.stdout.write(stored.map((e) => `ack ${e.seq} ${e.id}\n`).join(''));
  }
}
await Promise.all(Array.from({ length: inFlight }, appender));
