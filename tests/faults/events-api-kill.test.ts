// kill -9 of the compiled API while clients POST /v1/events: every event answered 201 is in the
// log afterwards, the chain verifies, and the restarted API continues it.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoredEvent } from '../../management-api/src/adapters/events/events-adapter.js';
import { verifyEventLog } from '../../management-api/src/adapters/events/log-verify.js';
import { onlySlot, startSlot } from '../contract/pods-harness.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const serverJs = path.join(repo, 'dist/box/management-api.js');
// Mutations are rate limited per client (60 a minute): stay under it in each round.
const REQUESTS = 50;
const KILL_AFTER = 20;
const CLIENTS = 8;

/** Start the API, fire REQUESTS appends at once, SIGKILL the process once KILL_AFTER were answered 201. */
async function round(root: string, manifestFile: string, label: string): Promise<{ acked: StoredEvent[]; signal: string | null; failed: number }> {
  const child = spawn(process.execPath, [serverJs, '--manifest', manifestFile], {
    cwd: repo,
    env: { PATH: process.env['PATH'] ?? '', AGENTBOX_ROOT: root, AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<string | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  let out = '';
  const apiUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"event":"ApiListening"'));
      if (line) resolve((JSON.parse(line) as { apiUrl: string }).apiUrl);
    });
    child.on('exit', () => reject(new Error(`the API exited before listening: ${out.slice(-500)}`)));
  });
  const key = readFileSync(path.join(root, 'var/lib/agentbox/secrets/api-key'), 'utf8').trim();
  const acked: StoredEvent[] = [];
  let failed = 0;
  let sent = 0;
  // A few clients posting back to back: when the kill lands, each has a request in flight.
  const client = async (): Promise<void> => {
    while (sent < REQUESTS) {
      const i = sent++;
      try {
        const res = await fetch(`${apiUrl}/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ kind: 'fault.api-kill', source: label, data: { i } }),
        });
        if (res.status !== 201) throw new Error(`status ${res.status}`);
        acked.push(((await res.json()) as { event: StoredEvent }).event);
        if (acked.length === KILL_AFTER) child.kill('SIGKILL');
      } catch {
        failed += 1;
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  return { acked, signal: await exited, failed };
}

t.test('SIGKILL of the API mid-append, twice: every 201 is stored, the chain verifies', async (t) => {
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: run \`npm run build\` before the tests`);
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-api-kill-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const d of ['run/agentbox', 'var/lib/agentbox', 'workspace']) mkdirSync(path.join(root, d), { recursive: true });
  const manifestFile = path.join(root, 'agentbox.toml');
  writeFileSync(manifestFile, onlySlot('events', 'local-jsonl'));

  const acked: StoredEvent[] = [];
  for (const label of ['first', 'second']) {
    const r = await round(root, manifestFile, label);
    t.equal(r.signal, 'SIGKILL', `${label}: the API was killed`);
    t.ok(r.acked.length >= KILL_AFTER, `${label}: ${r.acked.length} appends answered 201 before the kill`);
    t.ok(r.failed > 0, `${label}: ${r.failed} requests were cut off by the kill`);
    acked.push(...r.acked);
  }
  t.equal(new Set(acked.map((e) => e.seq)).size, acked.length, 'no seq was acknowledged twice across the crashes');

  const h = await startSlot('events', onlySlot('events', 'local-jsonl'), { root });
  t.teardown(() => h.close());
  const stored = new Map<string, StoredEvent>();
  let cursor: string | undefined;
  do {
    const page = await h.ops.query({ kinds: ['fault.api-kill'], limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const e of page.items) stored.set(e.id, e);
    cursor = page.nextCursor;
  } while (cursor);
  t.same(
    acked.filter((e) => JSON.stringify(stored.get(e.id)) !== JSON.stringify(e)),
    [],
    `all ${acked.length} acknowledged events are stored as acknowledged (${stored.size} stored)`,
  );
  const report = await verifyEventLog(path.join(root, 'var/lib/agentbox/events'));
  t.equal(report.ok, true, `the chain verifies ${JSON.stringify(report.firstBad ?? {})}`);
  const [next] = await h.ops.append([{ kind: 'fault.api-kill', source: 'after' }]);
  t.equal(next!.seq, report.head.seq + 1, 'appends continue the chain');
});
