// The policy pieces the launcher is given: sizes, roots with hidden paths carved out, the argv, and what a kernel lacks.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { kernelMissing } from '../../../management-api/src/sandbox/launcher-binary.js';
import { grantableRoots, launcherArgv, sizeBytes } from '../../../management-api/src/sandbox/sandbox-policy.js';

t.test('sizes use binary units', async (t) => {
  t.equal(sizeBytes('512'), 512);
  t.equal(sizeBytes('4k'), 4096);
  t.equal(sizeBytes('2g'), 2 * 2 ** 30);
  t.throws(() => sizeBytes('2G'), /not a number with an optional unit/);
});

t.test('a root holding a hidden path is replaced by its other entries', async (t) => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'agentbox-roots-')));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const d of ['app/dist', 'app/.agentbox/var/secrets', 'app/docs', 'sys']) mkdirSync(path.join(dir, d), { recursive: true });
  const roots = grantableRoots([path.join(dir, 'app'), path.join(dir, 'sys'), path.join(dir, 'missing')], [path.join(dir, 'app/.agentbox')]);
  t.same(roots, [path.join(dir, 'app/dist'), path.join(dir, 'app/docs'), path.join(dir, 'sys')]);
  t.same(grantableRoots([path.join(dir, 'app/.agentbox/var')], [path.join(dir, 'app/.agentbox')]), [], 'a root inside a hidden path is dropped');
});

t.test('the launcher argv ends with -- and carries every rule', async (t) => {
  const argv = launcherArgv('/x/agentbox-sandbox', {
    readOnly: ['/usr'],
    readWrite: ['/w/a'],
    devices: ['/dev/null'],
    connectPorts: [9090, 3128],
    rlimits: { dataBytes: 1, cpuSeconds: 2, openFiles: 16, fileSizeBytes: 4 },
    requireAbi: 8,
  });
  t.same(argv, [
    '/x/agentbox-sandbox',
    '--ro',
    '/usr',
    '--rw',
    '/w/a',
    '--dev',
    '/dev/null',
    '--connect',
    '9090',
    '--connect',
    '3128',
    '--rlimit',
    'data=1',
    '--rlimit',
    'cpu=2',
    '--rlimit',
    'nofile=16',
    '--rlimit',
    'fsize=4',
    '--require-abi',
    '8',
    '--',
  ]);
});

t.test('a memory limit goes to the launcher that stays beside the agent: the keeper, or the waiting parent in bubblewrap', async (t) => {
  const base = {
    readOnly: [],
    readWrite: [],
    devices: [],
    connectPorts: [],
    rlimits: { dataBytes: 1, cpuSeconds: 2, openFiles: 16, fileSizeBytes: 4 },
    memoryLimit: 1000.5,
  };
  const tail = (argv: string[]) => argv.slice(argv.indexOf('fsize=4') + 1);
  t.same(tail(launcherArgv('/l', { ...base, keep: true, readyFd: 3 })), ['--ready-fd', '3', '--keep', '--memory-limit', '1001', '--']);
  t.same(tail(launcherArgv('/l', { ...base, statusFd: 4, readyFd: 3 })), ['--ready-fd', '3', '--status-fd', '4', '--memory-limit', '1001', '--']);
  t.same(tail(launcherArgv('/l', base)), ['--'], 'a launcher that execs the agent stays beside nothing: no limit passed');
});

t.test('what an older kernel lacks, in words', async (t) => {
  t.match(kernelMissing(0, 6), /Landlock is unavailable/);
  t.match(kernelMissing(3, 6), /ABI 4 \(TCP connect rules\) is missing: the kernel has ABI 3/);
  t.match(kernelMissing(5, 6), /ABI 6 \(signal and abstract unix socket scoping\) is missing/);
  t.match(kernelMissing(7, 9), /ABI 9 is required, the kernel has ABI 7/);
});
