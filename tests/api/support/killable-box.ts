// The API as a process of its own on a test's root, to be killed (SIGKILL) or held still (SIGSTOP) in the middle of a request: what a kill leaves, the next start on the same root must handle.
import type { Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { lstat, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor, type makeRoot } from './harness.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const serverJs = `${repo}dist/box/management-api.js`;

/** A box root as the harness makes one. */
type Root = Awaited<ReturnType<typeof makeRoot>>;

/** The built API (dist) started on `root` with the manifest `toml`; its agents' pids are kept to end them after the test. */
export async function launchBox(t: Test, root: Root, toml: string) {
  await writeFile(path.join(root.dir, 'm.toml'), toml);
  const child: ChildProcess = spawn(process.execPath, [serverJs, '--manifest', path.join(root.dir, 'm.toml')], {
    cwd: repo,
    env: { PATH: process.env['PATH'] ?? '', AGENTBOX_ROOT: root.dir, AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pids: number[] = [];
  t.teardown(() => {
    child.kill('SIGKILL');
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended with the box.
      }
    }
  });
  const apiUrl = await waitFor('the API listens', () => /"event":"ApiListening".*?"apiUrl":"([^"]+)"/.exec(out)?.[1], 20_000);
  const key = (await readFile(root.paths.apiKeyFile, 'utf8')).trim();
  const auth = { authorization: `Bearer ${key}` };
  return {
    /** A JSON request to the API; its status and body. */
    async call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
      const res = await fetch(`${apiUrl}${urlPath}`, {
        method,
        headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    /** Spawn an agent running `script`, once it made `ready`: its id and working directory's path. */
    async agent(name: string, script: string): Promise<{ id: string; dir: string }> {
      const { body } = await this.call('POST', '/v1/agents', { name, command: '/bin/sh', args: ['-c', script] });
      const agent = body['agent'] as { id: string; pid: number; cwd: string };
      pids.push(agent.pid);
      const dir = path.join(root.paths.workspaceDir, agent.cwd);
      await waitFor(`agent ${name} is ready`, () => lstat(path.join(dir, 'ready')).then(() => true), 10_000);
      return { id: agent.id, dir };
    },
    /** The first log line of `event` (the API's pino JSON on stdout), once it is written. */
    logged: (event: string): Promise<Record<string, unknown>> =>
      waitFor(
        `the API logs ${event}`,
        () =>
          // Whole lines only: the last may be still being written.
          out
            .slice(0, out.lastIndexOf('\n'))
            .split('\n')
            .filter((line) => line.includes(`"event":"${event}"`))
            .map((line) => JSON.parse(line) as Record<string, unknown>)[0],
        20_000,
      ),
    /** Begin a write whose body never ends: `first` is all it sends of `length` bytes. */
    slowWrite(method: 'PUT' | 'POST', urlPath: string, first: Buffer, length: number): void {
      const url = new URL(apiUrl + urlPath);
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, headers: { ...auth, 'content-length': length } });
      // The box is killed under it.
      req.on('error', () => undefined);
      req.write(first);
    },
    /** Begin a JSON request whose answer nobody waits for (the box is stopped or killed under it). */
    send(method: string, urlPath: string, body: unknown): void {
      this.call(method, urlPath, body).catch(() => undefined);
    },
    /**
     * Hold the process still where it is (SIGSTOP): settles once every thread of it is stopped
     * (the signal is sent at once, but a thread running on another core stops a little later, and
     * the build threads would go on meanwhile).
     */
    async pause(): Promise<void> {
      child.kill('SIGSTOP');
      await waitFor('every thread of the API stopped', () => allStopped(child.pid!), 10_000);
    },
    /** Let it go on (SIGCONT). */
    resume: () => void child.kill('SIGCONT'),
    async kill(): Promise<void> {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Whether every thread of process `pid` is stopped (state T in /proc/<pid>/task/<tid>/stat). */
async function allStopped(pid: number): Promise<boolean> {
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    // The state follows the command's closing parenthesis (a command may hold one itself).
    if (stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'T') return false;
  }
  return true;
}

/** The name in `dir` that `form` matches, once there is one. */
export const temporaryIn = (dir: string, form: RegExp): Promise<string> =>
  waitFor(`a temporary in ${dir}`, async () => (await readdir(dir)).find((n) => form.test(n)), 10_000);

/** Every path under `dir` with what it is (a link with its target, a file with its bytes): what a sweep must not change. */
export async function tree(dir: string, rel = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(path.join(dir, rel))).sort()) {
    const p = path.join(rel, name);
    const st = await lstat(path.join(dir, p));
    if (st.isSymbolicLink()) out[p] = `link -> ${await readlink(path.join(dir, p))}`;
    else if (st.isDirectory()) Object.assign(out, { [p]: 'dir' }, await tree(dir, p));
    else out[p] = `file ${(await readFile(path.join(dir, p))).toString('base64')}`;
  }
  return out;
}
