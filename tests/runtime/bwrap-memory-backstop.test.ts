// Agents in bubblewrap against their memory budget between two samples: the launcher waiting as the agent's parent ends the whole sandbox near the line, detached processes included, and the agent cannot signal it.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ended } from '../contract/orchestrator.contract.js';
import { onlySlot, startSlot, type SlotHarness } from '../contract/pods-harness.js';
import { doneCount, launcherEndsHog, MEMFD_HOG, MEMORY_HOG, SYSV_HOG } from '../helpers/memory-hog.js';
import { buildLauncher } from '../helpers/sandbox-launcher.js';

buildLauncher();

// required: a spawn is refused rather than run without bubblewrap, so every case ran inside it.
const MANIFEST = `[sandbox]\nnamespaces = "required"\n\n[sandbox.limits]\nprocesses = 32\n`;

async function box(t: Test): Promise<SlotHarness<'orchestrator'>> {
  const h = await startSlot('orchestrator', onlySlot('orchestrator', 'local-procmgr', MANIFEST));
  t.teardown(() => h.close());
  return h;
}

async function spreadHog(t: Test, h: SlotHarness<'orchestrator'>, name: string, detach: boolean): Promise<void> {
  const dir = await launcherEndsHog(t, h, name, MEMORY_HOG, ['16', '96', detach ? '1' : '0']);
  const done = doneCount(readdirSync(dir));
  // Each child holds 96 MiB once done: two done would be 192 MiB, past 1.5 × the budget. The API's
  // sample, once a second, could let all sixteen finish (1.5 GiB).
  t.ok(done <= 1, `at most one child filled its memory before the end (${done} of 16)`);
}

t.test('many processes cannot overshoot the memory budget between two samples: the waiting parent ends them near it', async (t) => {
  await spreadHog(t, await box(t), 'spreadhog', false);
});

t.test('processes that detached (double fork, setsid) count too: they are re-parented to the namespace init the parent walks from', async (t) => {
  await spreadHog(t, await box(t), 'detachedhog', true);
});

t.test('memory written into a memfd, which no resident set shows, is watched too', async (t) => {
  const dir = await launcherEndsHog(t, await box(t), 'memfdhog', MEMFD_HOG, ['2048']);
  t.notOk(existsSync(path.join(dir, 'held')), 'killed long before it had written 2 GiB');
});

t.test('SysV shared memory filled and detached, in no resident set, counts in the namespace of its own', async (t) => {
  // 16 segments of 32 MiB, never more than one attached: the line (160 MiB) is five segments.
  const dir = await launcherEndsHog(t, await box(t), 'sysvhog', SYSV_HOG, ['16', '32']);
  // The segment being filled counts twice (attached: in the resident set too), so the end comes
  // with 3 to 5 segments done (96–160 MiB detached), never all 16 (512 MiB).
  const done = doneCount(readdirSync(dir));
  t.ok(done >= 3 && done <= 5, `ended near the line: ${done} of 16 segments filled`);
});

t.test('the agent cannot signal the parent that watches it, and its exit status still reads as its own', async (t) => {
  const h = await box(t);
  const dir = path.join(h.paths.workspaceDir, 'prober');
  mkdirSync(dir, { recursive: true });
  // Signal 0 is the permission check alone; SIGSTOP would freeze the backstop were it allowed.
  writeFileSync(
    path.join(dir, 'probe.py'),
    `import os, signal, sys
out = {}
for name, sig in (('check', 0), ('stop', signal.SIGSTOP), ('kill', signal.SIGKILL)):
    try:
        os.kill(os.getppid(), sig)
        out[name] = 'ok'
    except OSError as e:
        out[name] = os.strerror(e.errno)
open('result.txt', 'w').write(repr(sorted(out.items())))
sys.exit(7)
`,
  );
  const agent = await h.ops.spawn({ name: 'prober', command: '/usr/bin/python3', args: ['probe.py'], limits: { memory: '128m' } });
  t.match(await ended(h.ops, agent.id), { state: 'failed', exitCode: 7 }, 'its own exit code');
  t.equal(
    readFileSync(path.join(dir, 'result.txt'), 'utf8'),
    "[('check', 'Operation not permitted'), ('kill', 'Operation not permitted'), ('stop', 'Operation not permitted')]",
    'every signal to the parent refused (Landlock scopes signals to the domain the agent is nested in)',
  );
});
