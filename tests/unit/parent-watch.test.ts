// A supervised programme stops when its parent dies (kill -9) or when the `agentbox up` that owns
// the box does; outside supervisord the watch does nothing. Real processes: a shell as the
// parent, a Node child running watchParent, and a sleeping process as the owner.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { processAlive as alive } from '../../scripts/cli/box-registry.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-parent-watch-'));
const watcher = path.join(work, 'watcher.mjs');
const moduleUrl = pathToFileURL(path.join(repoRoot, 'dist/management-api/src/programme/parent-watch.js')).href;
// Says which parent is gone, handles SIGTERM as a programme does, and writes its pid once the watch
// is armed: a test that kills the parent as soon as the pid is there never kills it before the
// watch has read which parent it watches (the orphan's new parent would then look like its own).
writeFileSync(
  watcher,
  `import { watchParent } from '${moduleUrl}';
import { writeFileSync } from 'node:fs';
watchParent({ intervalMs: 50, onGone: (pid) => process.stderr.write('gone ' + pid + '\\n') });
process.on('SIGTERM', () => { process.stderr.write('SIGTERM\\n'); process.exit(0); });
writeFileSync(process.argv[2], String(process.pid));
setInterval(() => {}, 1000);
`,
);

/** A shell (the parent) running the watcher in the background and waiting; resolves to both and the watcher's stderr file. */
async function underShell(t: Test, env: Record<string, string>): Promise<{ shell: ChildProcess; pid: number; log: string }> {
  const pidFile = path.join(work, `pid-${Math.random()}`);
  const log = `${pidFile}.log`;
  const shell = spawn('/bin/sh', ['-c', `"${process.execPath}" "${watcher}" "${pidFile}" 2>"${log}" & wait`], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  t.teardown(() => {
    if (shell.exitCode === null) shell.kill('SIGKILL');
  });
  const pid = await waitFor('the watcher pid', () => {
    try {
      return Number(readFileSync(pidFile, 'utf8')) || undefined;
    } catch {
      return undefined;
    }
  });
  t.teardown(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { shell, pid, log };
}

t.test('under supervisord: kill -9 of the parent makes the programme SIGTERM itself', async (t) => {
  const { shell, pid, log } = await underShell(t, { SUPERVISOR_ENABLED: '1' });
  shell.kill('SIGKILL');
  await waitFor('the watcher to end', () => !alive(pid));
  t.match(readFileSync(log, 'utf8'), new RegExp(`gone ${shell.pid}\\nSIGTERM`), 'told, then stopped through its own SIGTERM handling');
});

// The owner (an attached agentbox up) and supervisord named by pid: either one ending stops the programme.
for (const [variable, what, message] of [
  ['AGENTBOX_OWNER_PID', 'under an attached agentbox up: the owner ending stops the programme', 'the owner, not the parent, is what went'],
  [
    'AGENTBOX_SUPERVISORD_PID',
    'supervisord named by pid (AGENTBOX_SUPERVISORD_PID): its end stops the programme',
    'supervisord, named by its pid, is what went',
  ],
] as const) {
  t.test(what, async (t) => {
    const watched = spawn('sleep', ['600'], { stdio: 'ignore' });
    t.teardown(() => watched.kill('SIGKILL'));
    const { pid, log } = await underShell(t, { SUPERVISOR_ENABLED: '1', [variable]: String(watched.pid) });
    watched.kill('SIGKILL');
    await waitFor('the watcher to end', () => !alive(pid));
    t.match(readFileSync(log, 'utf8'), `gone ${watched.pid}\nSIGTERM`, message);
  });
}

// The race agentbox up's e2e test met: supervisord killed while the API was still starting. Reparented
// before it first looked, the programme took init for its parent and ran on, holding its port.
for (const variable of ['AGENTBOX_SUPERVISORD_PID', 'AGENTBOX_OWNER_PID']) {
  t.test(`${variable} naming a process already gone when the watch starts: the programme stops at its first check`, async (t) => {
    const ended = spawn('true', { stdio: 'ignore' });
    await new Promise((resolve) => ended.once('exit', resolve));
    const { pid, log } = await underShell(t, { SUPERVISOR_ENABLED: '1', [variable]: String(ended.pid) });
    await waitFor('the watcher to end', () => !alive(pid));
    t.match(readFileSync(log, 'utf8'), `gone ${ended.pid}\nSIGTERM`);
  });
}

t.test('outside supervisord the watch does nothing', async (t) => {
  const { shell, pid, log } = await underShell(t, { SUPERVISOR_ENABLED: '' });
  shell.kill('SIGKILL');
  // The watcher polls every 50 ms when active: its orphaned life past a few polls shows it is not.
  await waitFor('the shell to be gone', () => shell.exitCode !== null || shell.signalCode !== null);
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.ok(alive(pid), 'still running with parent 1');
  t.equal(readFileSync(log, 'utf8'), '');
});
