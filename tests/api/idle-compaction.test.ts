// Idle compaction: after a burst of requests and a quiet period the API makes one full collection, and none while idle.
import t from 'tap';
import { ALL_OFF, startTestServer, waitFor } from './support/harness.js';

t.test('one full collection after each burst, none while idle', async (t) => {
  // The engine reports every collection it makes; a full one is what gives the young generation back. A gc entry carries
  // its kind in `detail`, which Node's typings leave off PerformanceEntry.
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const majors: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ('detail' in e && (e.detail as { kind?: number } | undefined)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors.push(e.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });
  t.teardown(() => observer.disconnect());

  const box = await startTestServer({ toml: ALL_OFF, timing: { idleCompactionMs: 150 } });
  t.teardown(() => box.close());
  const idle = box.server.app.agentbox.idleCompaction;
  const settled = idle.compactions;
  await new Promise((r) => setTimeout(r, 700));
  t.equal(idle.compactions, settled, 'no requests, no collection');

  // A burst that allocates: the young generation fills with garbage. A machine starved of CPU can
  // leave a quiet spell between two of its requests, which is idle as any: the longest is measured.
  let longestGap = 0;
  let last = performance.now();
  for (let i = 0; i < 200; i++) {
    await box.api('/v1/meta');
    longestGap = Math.max(longestGap, performance.now() - last);
    last = performance.now();
  }
  const burstEnded = performance.now();
  const duringBurst = idle.compactions - settled;
  if (longestGap < 150) t.equal(duringBurst, 0, 'none while requests keep coming');
  await waitFor('a collection after the burst', () => idle.compactions === settled + duringBurst + 1);
  await new Promise((r) => setTimeout(r, 700));
  t.equal(idle.compactions, settled + duringBurst + 1, 'exactly one once the burst is over');
  t.ok(
    majors.some((at) => at > burstEnded),
    'and it was a full collection made by the engine',
  );

  await box.api('/livez', { auth: false });
  await waitFor('a collection after the next burst', () => idle.compactions === settled + duringBurst + 2);
  const lines = box.logs.events('IdleCompaction');
  t.ok(lines.length === 0 || typeof lines[0]?.['ms'] === 'number', 'logged at debug with its duration when debug is on');
});
