// Runs a generated supervisord.conf under a real supervisord: re-rooted into a temp directory,
// as uid 1000 (via setpriv when the tests run as root), with test doubles for the box's commands
// and the real seal listener; talks XML-RPC over its unix socket.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './helpers.js';

export const BOX_UID = 1000;
const asRoot = process.getuid?.() === 0;

/** A temp directory the box's user can use: the runtime root and the fake bin directory. */
export function boxDirs(): { root: string; bin: string } {
  const base = mkdtempSync(path.join(tmpdir(), 'abx-sv-'));
  chmodSync(base, 0o755);
  const root = path.join(base, 'root');
  const bin = path.join(base, 'bin');
  mkdirSync(path.join(root, 'run/agentbox'), { recursive: true });
  mkdirSync(path.join(root, 'etc/agentbox'), { recursive: true });
  mkdirSync(bin);
  const script = (name: string, body: string) => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  // Test doubles of the box's commands: stage B exits at once, services stay up.
  script('agentbox-bootstrap', 'exit 0');
  for (const name of ['agentbox-api', 'agentbox-egress-proxy', 'agentbox-relay', 'agentbox-desktop', 'agentbox-telegram-mirror', 'code-server', 'playwright'])
    script(name, 'exec sleep 1000');
  // The real wrapper of features' and operators' programmes (the sandbox launcher's --parent-death mode).
  script('agentbox-parent-death', `exec ${path.join(repoRoot, 'config/bin/agentbox-parent-death')} "$@"`);
  // The real seal listener (management-api/src/boot), driven by the generated environment.
  script('agentbox-seal-listener', `exec ${process.execPath} ${path.join(repoRoot, 'dist/box/seal-listener.js')}`);
  // Records its argv and environment, then stays up.
  writeFileSync(
    path.join(bin, 'record.mjs'),
    // Written to a temp file and renamed: a reader that sees record.json sees all of it.
    `import { renameSync, writeFileSync } from 'node:fs';\nconst file = process.env.AGENTBOX_ROOT + '/record.json';\nwriteFileSync(file + '.tmp', JSON.stringify({ argv: process.argv.slice(2), env: process.env }));\nrenameSync(file + '.tmp', file);\nsetInterval(() => {}, 1 << 30);\n`,
  );
  script('record', `exec ${process.execPath} ${path.join(bin, 'record.mjs')} "$@"`);
  return { root, bin };
}

/** Give the box's user the tree under `dir` (when running as root). */
export function chownTree(dir: string): void {
  if (!asRoot) return;
  chownSync(dir, BOX_UID, BOX_UID);
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) chownTree(p);
    else chownSync(p, BOX_UID, BOX_UID);
  }
}

/**
 * supervisord in the foreground (-n) with `conf`, as uid 1000 when possible. Programmes log to
 * /dev/stdout, which supervisord reopens: that needs a pipe owned by the box's user, as runc
 * gives a container (not a socket, which is what Node's stdio 'pipe' gives a child, and not a
 * root-owned pipe). So a shell running as that user pipes supervisord's output through `cat`.
 */
export function startSupervisord(conf: string, bin: string, root: string): ChildProcess {
  const shell = ['bash', '-c', 'set -o pipefail; supervisord -n -c "$1" 2>&1 | cat', 'bash', conf];
  const command = asRoot ? ['setpriv', `--reuid=${BOX_UID}`, `--regid=${BOX_UID}`, '--clear-groups', '--', ...shell] : shell;
  return spawn(command[0]!, command.slice(1), {
    env: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, HOME: root, LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** One XML-RPC call over supervisord's unix socket; resolves to the response body. */
export function xmlrpc(socketPath: string, method: string): Promise<string> {
  const body = `<?xml version="1.0"?><methodCall><methodName>${method}</methodName><params></params></methodCall>`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, path: '/RPC2', method: 'POST', headers: { 'Content-Type': 'text/xml', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => (res.statusCode === 200 ? resolve(data) : reject(new Error(`HTTP ${res.statusCode}: ${data}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** name → statename from a getAllProcessInfo response. */
export function processStates(xml: string): Record<string, string> {
  const states: Record<string, string> = {};
  for (const struct of xml.split('<struct>').slice(1)) {
    const field = (key: string) => new RegExp(`<name>${key}</name>\\s*<value>(?:<string>)?([^<]*)`).exec(struct)?.[1];
    const name = field('name');
    const state = field('statename');
    if (name !== undefined && state !== undefined) states[name] = state;
  }
  return states;
}

/**
 * Stop supervisord through XML-RPC and wait for it (and the shell around it) to exit; signals
 * supervisord itself (its pid file is next to the socket) when XML-RPC fails or it hangs.
 */
export async function shutdown(proc: ChildProcess, socketPath: string): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(Number(readFileSync(path.join(path.dirname(socketPath), 'supervisord.pid'), 'utf8')), sig);
    } catch {
      proc.kill(sig);
    }
  };
  await xmlrpc(socketPath, 'supervisor.shutdown').catch(() => signal('SIGTERM'));
  const timer = setTimeout(() => signal('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** Remove a temp directory made by boxDirs (its parent). */
export function removeBoxDirs(dirs: { root: string }): void {
  rmSync(path.dirname(dirs.root), { recursive: true, force: true });
}

/** `supervisorctl -c conf status`: exit code and output. */
export function supervisorctlStatus(conf: string): { code: number | null; stdout: string } {
  const r = spawnSync('supervisorctl', ['-c', conf, 'status'], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout };
}
