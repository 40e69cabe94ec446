// The registry of running boxes: an entry counts only while its supervisord runs with that box's
// config (a dead pid, a zombie or a stranger given the pid is dropped); `agentbox boxes` lists it
// and `agentbox down` stops it. A real supervisord stands for the box.
import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';
import {
  boxAt,
  entryAlive,
  entryFile,
  lockRegistry,
  processAlive,
  registerBox,
  registryDir,
  runningBoxes,
  unregisterBox,
  type BoxEntry,
} from '../../../scripts/cli/box-registry.js';
import { readStat } from '../../../management-api/src/sandbox/limits/proc-stat.js';
import { agentboxBin } from '../../helpers/cli.js';
import { killSession, sessionPids } from '../../helpers/process-session.js';
import { waitFor } from '../../helpers/wait.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-registry-'));
const registry = path.join(work, 'xdg/agentbox');

/** A supervisord with the box's config path under `root`, as `agentbox up` runs it. */
async function supervisord(t: Test, root: string): Promise<number> {
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  mkdirSync(paths.runDir, { recursive: true });
  mkdirSync(path.dirname(paths.supervisordConf), { recursive: true });
  writeFileSync(
    paths.supervisordConf,
    [
      '[unix_http_server]',
      `file=${paths.supervisorSocket}`,
      '',
      '[supervisord]',
      'nodaemon=true',
      `pidfile=${paths.supervisorPidfile}`,
      'logfile=/dev/null',
      'logfile_maxbytes=0',
      '',
      '[rpcinterface:supervisor]',
      'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
      '',
      '[program:idle]',
      'command=/bin/sleep 600',
      'startsecs=0',
      '',
    ].join('\n'),
  );
  const proc = spawn('supervisord', ['--nodaemon', '--configuration', paths.supervisordConf], { stdio: 'ignore', detached: true });
  // Its own session: the teardown ends supervisord and the programmes it put in groups of their own.
  t.teardown(() => killSession(proc.pid!));
  await waitFor('supervisord to write its pid file', () => {
    try {
      return statSync(paths.supervisorPidfile).size > 0;
    } catch {
      return false;
    }
  });
  return proc.pid!;
}

function entry(root: string, pid: number): BoxEntry {
  return {
    root,
    manifest: path.join(root, 'agentbox.toml'),
    pid,
    upPid: process.pid,
    supervisordConf: runtimePaths({ AGENTBOX_ROOT: root }).supervisordConf,
    apiUrl: 'http://127.0.0.1:9',
    metricsUrl: 'http://127.0.0.1:9/metrics',
    ports: [{ name: 'API', port: 9 }],
    startedAt: new Date().toISOString(),
  };
}

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [agentboxBin, ...args], {
    cwd: work,
    env: { ...process.env, XDG_RUNTIME_DIR: path.join(work, 'xdg') },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

t.test('the registry lives in XDG_RUNTIME_DIR, else /tmp/agentbox-<uid>', async (t) => {
  t.equal(registryDir({ XDG_RUNTIME_DIR: '/run/user/7' }), '/run/user/7/agentbox');
  t.equal(registryDir({}), `/tmp/agentbox-${process.getuid!()}`);
});

t.test('only entries whose supervisord runs with that config count; others are dropped', async (t) => {
  const root = path.join(work, 'a');
  const pid = await supervisord(t, root);
  registerBox(entry(root, pid), registry);
  t.equal((statSync(registry).mode & 0o777).toString(8), '700', 'the directory is private');
  t.equal((statSync(entryFile(registry, root)).mode & 0o777).toString(8), '600');
  // A stranger: this test process has a live pid, but is no supervisord of that root.
  registerBox(entry(path.join(work, 'stranger'), process.pid), registry);
  // Gone: a pid that ended.
  const ended = spawnSync('true').pid;
  registerBox(entry(path.join(work, 'ended'), ended), registry);
  t.same(
    runningBoxes(registry).map((b) => b.root),
    [root],
  );
  t.same(readdirSync(registry).sort(), [path.basename(entryFile(registry, root))], 'stale entries removed');
  t.equal(boxAt(root, registry)?.pid, pid);
  unregisterBox(root, pid + 1, registry);
  t.ok(boxAt(root, registry), "another supervisord's end leaves the entry");
  unregisterBox(root, pid, registry);
  t.equal(boxAt(root, registry), undefined);
});

t.test('agentbox boxes lists a running box; agentbox down stops it, then says none runs', async (t) => {
  const root = path.join(work, 'b');
  const pid = await supervisord(t, root);
  registerBox(entry(root, pid), registry);
  const listed = JSON.parse(cli('boxes', '--json').stdout) as Array<{ root: string; pid: number; ready: boolean; detached: boolean }>;
  t.match(listed, [{ root, pid, ready: false, detached: false }]);
  t.match(cli('boxes').stdout, new RegExp(`${root}\\s+${pid}\\s+no\\s+API 9`));
  const down = cli('down', '--root', root);
  t.equal(down.code, 0, down.stderr);
  t.match(down.stderr, `stopping the box under ${root} (supervisord pid ${pid})`);
  t.notOk(processAlive(pid), 'supervisord ended');
  t.same(sessionPids(pid), [], 'and its programme with it');
  t.same(JSON.parse(cli('boxes', '--json').stdout), []);
  const again = cli('down', '--root', root);
  t.equal(again.code, 1);
  t.match(again.stderr, `no box is running under ${root}`);
  t.equal(cli('down', '--timeout', 'soon').code, 2, 'bad usage');
});

t.test('a command given --root talks to the box running there at the URL the registry knows, not the manifest default', async (t) => {
  const root = path.join(work, 'chosen-ports');
  const pid = await supervisord(t, root);
  // As `up --local` with AGENTBOX_API_PORT=0 records it: a port the manifest does not name.
  registerBox({ ...entry(root, pid), apiUrl: 'http://127.0.0.1:9' }, registry);
  t.teardown(() => unregisterBox(root, pid, registry));
  const status = cli('status', '--root', root);
  t.equal(status.code, 1);
  t.match(status.stderr, /cannot reach http:\/\/127\.0\.0\.1:9\//, 'the registered URL, not 127.0.0.1:9090');
  t.match(status.stderr, /agentbox boxes` lists the running boxes and their API URLs/);
  t.match(cli('status', '--root', root, '--url', 'http://127.0.0.1:7').stderr, /cannot reach http:\/\/127\.0\.0\.1:7\//, '--url still wins');
});

t.test("a command given the --root of a box that is not running never sends its key to another root's box at the manifest's address", async (t) => {
  const other = path.join(work, 'other-box');
  const pid = await supervisord(t, other);
  // Another box answering at this manifest's address, as the registry lists it.
  registerBox({ ...entry(other, pid), apiUrl: 'http://127.0.0.1:9/' }, registry);
  t.teardown(() => unregisterBox(other, pid, registry));
  const stopped = path.join(work, 'stopped-box');
  writeFileSync(path.join(work, 'agentbox.toml'), '[api]\nbind = "127.0.0.1"\nport = 9\n');
  t.teardown(() => rmSync(path.join(work, 'agentbox.toml'), { force: true }));
  for (const args of [
    ['status', '--root', stopped],
    ['snapshot', 'ls', '--root', stopped],
  ]) {
    const r = cli(...args);
    t.equal(r.code, 1, args.join(' '));
    t.match(r.stderr, `no box is running under ${stopped}: the box at http://127.0.0.1:9 (the manifest's address) is the one under ${other}`);
    t.notMatch(r.stderr, /cannot reach/, 'nothing was sent');
  }
  t.match(cli('status', '--root', other).stderr, /cannot reach http:\/\/127\.0\.0\.1:9\//, "that box's own root still reaches it");
  t.match(cli('status', '--root', stopped, '--url', 'http://127.0.0.1:7').stderr, /cannot reach http:\/\/127\.0\.0\.1:7\//, '--url still wins');
});

t.test('agentbox down finds a box by its pid file when the registry does not list it', async (t) => {
  const root = path.join(work, 'c');
  const pid = await supervisord(t, root);
  const down = cli('down', '--root', root);
  t.equal(down.code, 0, down.stderr);
  t.notOk(processAlive(pid));
});

t.test('a box still starting (its process not yet supervisord) is alive by pid and start time, and no reader removes it', async (t) => {
  const dir = path.join(work, 'starting');
  const child = spawn('/bin/sleep', ['30'], { stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  const startTime = readStat(child.pid!)!.startTime;
  const entry: BoxEntry = {
    root: path.join(work, 'starting-box'),
    manifest: 'm',
    pid: child.pid!,
    pidStartTime: startTime,
    supervisordConf: '/nowhere/supervisord.conf',
    apiUrl: 'http://127.0.0.1:1',
    metricsUrl: 'http://127.0.0.1:2/metrics',
    ports: [{ name: 'API', port: 1 }],
    startedAt: new Date().toISOString(),
  };
  registerBox(entry, dir);
  t.ok(entryAlive(entry), 'the same pid with the same start time');
  t.same(
    runningBoxes(dir).map((b) => b.root),
    [entry.root],
    'listed, and kept, while its command line is not supervisord yet',
  );
  t.notOk(entryAlive({ ...entry, pidStartTime: startTime + 1 }), 'a pid reused by another process is not the box');
  child.kill('SIGKILL');
  await waitFor('the process to end', () => !processAlive(child.pid!));
  t.same(runningBoxes(dir), [], 'gone once its process is');
});

t.test('the registry lock: one holder at a time, in a 0700 directory of its own', async (t) => {
  const dir = path.join(work, 'locked');
  const release = await lockRegistry(dir);
  t.equal(statSync(dir).mode & 0o777, 0o700);
  let second = false;
  const waiting = lockRegistry(dir).then((r) => {
    second = true;
    return r;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.notOk(second, 'a second taker waits');
  release();
  (await waiting)();
  t.ok(second, 'and gets it once released');
  // Held past the wait: the taker goes on without it (and says so) rather than never starting.
  const held = await lockRegistry(dir);
  const started = Date.now();
  (await lockRegistry(dir, 100))();
  t.ok(Date.now() - started >= 100, 'waited its time first');
  held();
});
