// Python agents that take memory past their budget in ways no single resident set shows (many processes, a memfd, SysV segments), for the memory backstop tests (the keeper, and the waiting parent in bubblewrap).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { ended } from '../contract/orchestrator.contract.js';
import type { SlotHarness } from '../contract/pods-harness.js';

/**
 * `python3 hog.py COUNT MIB [1]`: COUNT children at once, each filling MIB MiB and then marking
 * done-<i> in the working directory, then sleeping. With `1` they are started by a daemon that
 * double-forked and called setsid: re-parented away from the agent's first process, none of them
 * descends from it.
 */
export const MEMORY_HOG = `
import os, sys, time
count, mib = int(sys.argv[1]), int(sys.argv[2])
detach = len(sys.argv) > 3 and sys.argv[3] == '1'
def spread():
    for i in range(count):
        if os.fork() == 0:
            block = b'\\x01' * (mib << 20)
            open('done-%d' % i, 'w').close()
            time.sleep(600)
            os._exit(0)
if detach:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            spread()
            time.sleep(600)
        os._exit(0)
else:
    spread()
time.sleep(600)
`;

/** How many children of MEMORY_HOG filled their memory, from the done-<i> files in `names`. */
export const doneCount = (names: readonly string[]): number => names.filter((n) => n.startsWith('done-')).length;

/**
 * `python3 hog.py MIB`: MIB MiB written into one memory file (memfd_create) 8 MiB at a time,
 * never mapped, so no resident set shows them; then `held` is marked in the working directory.
 */
export const MEMFD_HOG = `
import os, sys, time
fd = os.memfd_create('hoard')
block = b'\\x01' * (8 << 20)
for _ in range(int(sys.argv[1]) // 8):
    os.write(fd, block)
open('held', 'w').close()
time.sleep(600)
`;

/**
 * `python3 hog.py COUNT MIB`: COUNT SysV shared memory segments of MIB MiB, each filled and then
 * detached (so no process's resident set holds it), marking done-<i> after each, 100 ms apart: a
 * look at the memory that comes late on a loaded machine still comes before the next segment.
 */
export const SYSV_HOG = `
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmdt.argtypes = [ctypes.c_void_p]
count, size = int(sys.argv[1]), int(sys.argv[2]) << 20
for i in range(count):
    segment = libc.shmget(0, size, 0o1000 | 0o600)
    if segment < 0:
        sys.exit('shmget: errno %d' % ctypes.get_errno())
    address = libc.shmat(segment, None, 0)
    ctypes.memset(address, 1, size)
    libc.shmdt(address)
    open('done-%d' % i, 'w').close()
    time.sleep(0.1)
time.sleep(600)
`;

/**
 * Run `script` as agent `name` of `h` (`python3 hog.py ARGS…` in its own directory, a 128 MiB
 * budget: the launcher's line is 1.25 × 128 = 160 MiB) and assert that the launcher ended it: the
 * reason limit:memory with SIGKILL, where the sample's terminate sends SIGTERM. Its directory.
 */
export async function launcherEndsHog(t: Test, h: SlotHarness<'orchestrator'>, name: string, script: string, args: string[]): Promise<string> {
  const dir = path.join(h.paths.workspaceDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'hog.py'), script);
  const agent = await h.ops.spawn({ name, command: '/usr/bin/python3', args: ['hog.py', ...args], limits: { memory: '128m' } });
  t.match(
    await ended(h.ops, agent.id, 20_000),
    { state: 'terminated', reason: 'limit:memory', signal: 'SIGKILL' },
    'ended over its memory budget by the launcher',
  );
  return dir;
}
