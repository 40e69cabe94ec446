// Agents whose processes detach (double fork + setsid) under the launcher alone: counted, held to the process budget, and ended with the agent — on terminate, on exit, past a SIGTERM they ignore.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ended, processGone } from '../contract/orchestrator.contract.js';
import { onlySlot, startSlot, type SlotHarness } from '../contract/pods-harness.js';
import { buildLauncher } from '../helpers/sandbox-launcher.js';
import { waitFor } from '../helpers/wait.js';
import { ESCAPE } from '../helpers/detaching-agent.js';
import { doneCount, launcherEndsHog, MEMFD_HOG, MEMORY_HOG } from '../helpers/memory-hog.js';

buildLauncher();

const MANIFEST = `[sandbox]\nnamespaces = "off"\n\n[sandbox.limits]\nprocesses = 16\n`;

async function box(t: Test): Promise<SlotHarness<'orchestrator'>> {
  const h = await startSlot('orchestrator', onlySlot('orchestrator', 'local-procmgr', MANIFEST));
  t.teardown(() => h.close());
  return h;
}

/** Spawn the escaping agent `name`; resolves with its id and its daemons' pids once they run. */
async function spawnEscaping(
  h: SlotHarness<'orchestrator'>,
  name: string,
  o: { count: number; leaderSeconds: number; ignoreTerm?: boolean; processes?: number },
): Promise<{ id: string; daemons: number[] }> {
  const dir = path.join(h.paths.workspaceDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'escape.py'), ESCAPE);
  const agent = await h.ops.spawn({
    name,
    command: '/usr/bin/python3',
    args: ['escape.py', String(o.count), String(o.leaderSeconds), o.ignoreTerm ? '1' : '0'],
    ...(o.processes ? { limits: { processes: o.processes } } : {}),
  });
  const file = path.join(dir, 'daemons.txt');
  const daemons = await waitFor(
    `agent ${name} to start its daemons`,
    () => {
      try {
        return readFileSync(file, 'utf8').split(' ').map(Number);
      } catch {
        return undefined;
      }
    },
    15_000,
    50,
  );
  return { id: agent.id, daemons };
}

const allGone = (pids: readonly number[]) => waitFor(`processes ${pids.join(' ')} to end`, () => pids.every(processGone), 15_000, 50);

t.test("detached daemons are the agent's: counted in its usage and ended by terminate", async (t) => {
  const h = await box(t);
  const { id, daemons } = await spawnEscaping(h, 'detacher', { count: 5, leaderSeconds: 600 });
  t.equal(daemons.length, 5);
  t.notOk(daemons.some(processGone), 'the daemons run');
  // The leader and its five daemons; the keeper is the sandbox's own and not counted.
  const counted = await waitFor(
    'a sample that counts the daemons',
    async () => {
      const s = await h.ops.status(id);
      return (s.usage?.processes ?? 0) >= 6 ? s.usage!.processes : undefined;
    },
    10_000,
    100,
  );
  t.equal(counted, 6, 'leader + 5 daemons counted');
  await h.ops.terminate(id, 1_000);
  t.match(await ended(h.ops, id), { state: 'terminated' });
  await allGone(daemons);
  t.pass('every daemon ended with the agent');
});

t.test('daemons that ignore SIGTERM end after the grace', async (t) => {
  const h = await box(t);
  const { id, daemons } = await spawnEscaping(h, 'stubborn', { count: 3, leaderSeconds: 600, ignoreTerm: true });
  await h.ops.terminate(id, 300);
  t.match(await ended(h.ops, id), { state: 'terminated', signal: 'SIGKILL' }, 'ended by SIGKILL after the grace');
  await allGone(daemons);
  t.pass('every daemon ended');
});

t.test("when the agent's first process exits, the daemons it left end too", async (t) => {
  const h = await box(t);
  const { id, daemons } = await spawnEscaping(h, 'leaver', { count: 3, leaderSeconds: 0.2 });
  t.match(await ended(h.ops, id), { state: 'exited', exitCode: 0 }, 'the agent exited with its own status');
  await allGone(daemons);
  t.pass('every daemon ended');
});

t.test('detached processes count against the process budget', async (t) => {
  const h = await box(t);
  const { id, daemons } = await spawnEscaping(h, 'spreader', { count: 12, leaderSeconds: 600, processes: 8 });
  t.match(await ended(h.ops, id, 20_000), { state: 'terminated', reason: 'limit:processes' });
  await allGone(daemons);
  t.pass('every daemon ended');
});

t.test("another agent survives: a keeper ends its own agent's processes only", async (t) => {
  const h = await box(t);
  const victim = await spawnEscaping(h, 'victim', { count: 2, leaderSeconds: 600 });
  const attacker = await spawnEscaping(h, 'attacker', { count: 2, leaderSeconds: 0.1 });
  await ended(h.ops, attacker.id);
  await allGone(attacker.daemons);
  t.match(await h.ops.status(victim.id), { state: 'running' }, 'the victim still runs');
  t.notOk(victim.daemons.some(processGone), "the victim's daemons still run");
});

t.test('many processes cannot overshoot the memory budget between two samples: the keeper ends them near it', async (t) => {
  const dir = await launcherEndsHog(t, await box(t), 'spreadhog', MEMORY_HOG, ['16', '96']);
  const done = doneCount(readdirSync(dir));
  // Each child holds 96 MiB once done: two done would be 192 MiB, past 1.5 × the budget.
  t.ok(done <= 1, `at most one child filled its memory before the end (${done} of 16)`);
});

t.test('memory written into a memfd, which no resident set shows, is kept to the line too', async (t) => {
  const dir = await launcherEndsHog(t, await box(t), 'memfdhog', MEMFD_HOG, ['2048']);
  t.notOk(existsSync(path.join(dir, 'held')), 'killed long before it had written 2 GiB');
});
