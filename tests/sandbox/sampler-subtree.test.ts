// The sampler walks contained agents' trees through /proc/<pid>/task/<tid>/children instead of listing all of /proc: every thread's children are found, a process outside the trees is never read, and an agent that is not contained still gets the whole scan.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readChildren } from '../../management-api/src/sandbox/limits/proc-children.js';
import { UsageSampler } from '../../management-api/src/sandbox/limits/usage-sampler.js';

const LEADER = 5000;

/** One process of a fake /proc: `tasks` maps each of its thread ids to that thread's children. */
type FakeProcess = { pid: number; ppid: number; session: number; ticks: number; tasks: Record<number, number[]> };

/** A /proc laid out as the kernel does, with `tasks` per pid: each thread's children. */
function fakeProc(processes: FakeProcess[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-fake-proc-'));
  for (const p of processes) {
    const threads = Object.keys(p.tasks).length;
    mkdirSync(path.join(root, String(p.pid)));
    // state, ppid, pgrp, session, tty, tpgid, flags, 4 fault counts, utime, stime, cutime, cstime, priority, nice, threads, itreal, start, vsize, rss
    const stat = `${p.pid} (p${p.pid}) S ${p.ppid} ${p.session} ${p.session} 0 -1 0 0 0 0 0 ${p.ticks} 0 0 0 20 0 ${threads} 0 ${p.pid}0 1000 10\n`;
    writeFileSync(path.join(root, String(p.pid), 'stat'), stat);
    for (const [tid, children] of Object.entries(p.tasks)) {
      mkdirSync(path.join(root, String(p.pid), 'task', tid), { recursive: true });
      writeFileSync(path.join(root, String(p.pid), 'task', tid, 'children'), children.map((c) => `${c} `).join(''));
    }
  }
  return root;
}

const tree: FakeProcess[] = [
  // The keeper; its agent; the agent has two threads, the second forked 5003; 5004 is listed but has gone.
  { pid: LEADER, ppid: 1, session: LEADER, ticks: 100, tasks: { [LEADER]: [5001] } },
  { pid: 5001, ppid: LEADER, session: LEADER, ticks: 200, tasks: { 5001: [], 5002: [5003, 5004] } },
  { pid: 5003, ppid: 5001, session: 5003, ticks: 300, tasks: { 5003: [] } },
  // Not under the leader, in its session: found by a whole scan only.
  { pid: 6000, ppid: 1, session: LEADER, ticks: 400, tasks: { 6000: [] } },
];

t.test('the children of every thread, and none of a process that has gone', async (t) => {
  const root = fakeProc(tree);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  t.same(readChildren(5001, 2, root).sort(), [5003, 5004], 'a child is listed under the thread that forked it');
  t.same(readChildren(LEADER, 1, root), [LEADER + 1], 'one thread: its own file');
  t.same(readChildren(5004, 1, root), [], 'gone: nothing');
});

t.test('a contained agent is measured from its tree alone; one that is not, from all of /proc', async (t) => {
  const root = fakeProc(tree);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const contained = new UsageSampler(root);
  const kept = contained.follow('agt_kept', LEADER, { overhead: 1, contained: true });
  await contained.sample();
  t.same(
    kept.members.map((s) => s.pid).sort(),
    [LEADER, 5001, 5003],
    'the keeper, its child, and the grandchild forked by a second thread (in a session of its own)',
  );
  t.equal(kept.usage.processes, 2, 'the keeper is the sandbox’s own');
  t.equal(kept.usage.cpu_seconds, 6, '100 + 200 + 300 ticks');

  const open = new UsageSampler(root);
  const loose = open.follow('agt_loose', LEADER);
  await open.sample();
  t.same(loose.members.map((s) => s.pid).sort(), [LEADER, 5001, 5003, 6000], 'the whole scan also finds what shares its session');

  // Once the tree is known, a process re-parented away from it (its parent killed) is still found from itself.
  writeFileSync(path.join(root, String(LEADER), 'task', String(LEADER), 'children'), '');
  await contained.sample();
  t.same(kept.members.map((s) => s.pid).sort(), [LEADER, 5001, 5003], 'known processes are roots of the walk');
});
