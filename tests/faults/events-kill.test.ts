// kill -9 during event appends: every acknowledged event is in the log afterwards and the chain verifies.
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyEventLog } from '../../management-api/src/adapters/events/log-verify.js';
import { bundleEntry } from '../contract/beads-events-bundle.js';
import { onlySlot, startSlot } from '../contract/pods-harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Run the appender until it has reported at least `acks` acknowledgements, then SIGKILL it. */
async function appendThenKill(appender: string, dir: string, acks: number): Promise<{ acked: Map<number, string>; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, [appender, dir, String(256 * 1024)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked = new Map<number, string>();
  let partial = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const text = partial + chunk;
      const cut = text.lastIndexOf('\n');
      partial = text.slice(cut + 1);
      for (const line of text.slice(0, cut).split('\n')) {
        const m = /^ack (\d+) (\S+)$/.exec(line);
        if (m) acked.set(Number(m[1]), m[2]!);
      }
      if (acked.size >= acks && child.exitCode === null && !child.killed) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.on('exit', () => (acked.size >= acks ? resolve() : reject(new Error(`the appender exited after ${acked.size} acknowledgements`))));
  });
  return { acked, signal: await exited };
}

t.test('SIGKILL mid-stream, three times on one log: nothing acknowledged is lost, the chain verifies', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-events-kill-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const dir = path.join(root, 'var/lib/agentbox/events');
  const appender = await bundleEntry(path.join(here, 'events-kill-appender.ts'));
  t.teardown(() => rmSync(appender, { force: true }));

  const allAcked = new Map<number, string>();
  const reused: number[] = [];
  for (const target of [3000, 5000, 4000]) {
    const { acked, signal } = await appendThenKill(appender, dir, target);
    t.equal(signal, 'SIGKILL', `the appender died by SIGKILL after ${acked.size} acknowledgements`);
    for (const [seq, id] of acked) {
      if (allAcked.has(seq)) reused.push(seq);
      allAcked.set(seq, id);
    }
  }
  t.same(reused, [], 'no acknowledged seq was handed out again after a crash');
  t.ok(readdirSync(dir).length > 1, 'the log rotated while being killed');

  // Reopen through the resolver, as the restarted API would (this also discards a torn tail).
  const h = await startSlot('events', onlySlot('events', 'local-jsonl'), { root });
  t.teardown(() => h.close());
  t.equal(h.state(), 'healthy', 'the log reopens after the crashes');
  const stored = new Map<number, string>();
  let cursor: string | undefined;
  do {
    const page = await h.ops.query({ kinds: ['fault.kill'], limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const e of page.items) stored.set(e.seq, e.id);
    cursor = page.nextCursor;
  } while (cursor);
  const missing = [...allAcked].filter(([seq, id]) => stored.get(seq) !== id);
  t.same(missing, [], `all ${allAcked.size} acknowledged events are stored with their seq and id (${stored.size} stored)`);

  const report = await verifyEventLog(dir);
  t.equal(report.ok, true, `the chain verifies: ${JSON.stringify(report.firstBad ?? {})}`);
  t.equal(report.events, stored.size, 'verify saw every stored event');
  const [next] = await h.ops.append([{ kind: 'fault.kill', source: 'after' }]);
  t.equal(next!.seq, report.head.seq + 1, 'appends continue the chain after the crashes');
  t.equal((await verifyEventLog(dir)).ok, true, 'and the log still verifies');
});
