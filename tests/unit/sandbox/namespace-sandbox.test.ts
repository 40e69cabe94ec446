// bubblewrap per agent, for real: what an agent inside sees, reaches and may start, and who it is on the host.
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NamespaceSandbox, ready } from '../../../management-api/src/sandbox/namespace-sandbox.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentbox-nsbox-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const workspace = path.join(root, 'workspace');
const secrets = path.join(root, 'var', 'secrets');
for (const dir of [path.join(workspace, 'a'), path.join(workspace, 'b'), secrets]) mkdirSync(dir, { recursive: true });
writeFileSync(path.join(secrets, 'api-key'), 'the-api-key');
writeFileSync(path.join(workspace, 'b', 'notes.txt'), 'agent b only');

/** A loopback service standing in for the API: answers every connection with a line. */
async function loopbackService(): Promise<{ port: number; close: () => void }> {
  const server = net.createServer((c) => c.end('from-the-api\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** Run a node script as an agent in `dir`; resolves with its output and exit. */
async function runAgent(sandbox: NamespaceSandbox, dir: string, script: string): Promise<{ out: string; code: number | null; pid: number }> {
  // The test runner preloads its coverage hook into every node it starts, from a path the sandbox does not have.
  const w = await sandbox.wrap('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, '-e', script], dir, '/usr/bin:/bin');
  const child = spawn(w.command, w.args, { cwd: dir, env: { PATH: '/usr/bin:/bin' }, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], ...w.ids });
  await ready(child.stdio[3] as NodeJS.ReadableStream);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { out, code, pid: child.pid! };
}

t.test('an agent in its own namespaces', async (t) => {
  const api = await loopbackService();
  t.teardown(api.close);
  const socket = path.join(root, 'run', 'sandbox', 'api.sock');
  const sandbox = new NamespaceSandbox({ enabled: true, namespaces: 'required', processes: 40, forwards: [{ port: api.port, socket }], root });
  await sandbox.start();
  t.teardown(() => sandbox.close());
  t.ok(sandbox.active, 'bubblewrap is used');
  const dirA = path.join(workspace, 'a');

  const seen = await runAgent(sandbox, dirA, `
    const fs = require('fs'), net = require('net');
    const r = { root: fs.readdirSync('/').sort(), own: ${JSON.stringify(dirA)}, uid: process.getuid() };
    fs.writeFileSync('out.txt', 'written');
    for (const p of [${JSON.stringify(path.join(secrets, 'api-key'))}, ${JSON.stringify(path.join(workspace, 'b', 'notes.txt'))}]) { try { fs.readFileSync(p); r[p] = 'read'; } catch (e) { r[p] = e.code; } }
    try { fs.writeFileSync('/usr/x', 'x'); r.usr = 'written'; } catch (e) { r.usr = e.code; }
    r.pids = fs.readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).length;
    const direct = new Promise((res) => net.connect(80, '1.1.1.1').on('connect', () => res('connected')).on('error', (e) => res(e.code)));
    const udp = new Promise((res) => require('dgram').createSocket('udp4').send('x', 53, '8.8.8.8', (e) => res(e ? e.code : 'sent')));
    const viaApi = new Promise((res) => { let d = ''; net.connect(${api.port}, '127.0.0.1').on('data', (b) => d += b).on('end', () => res(d.trim())).on('error', (e) => res(e.code)); });
    Promise.all([direct, udp, viaApi]).then(([d, u, a]) => { r.direct = d; r.udp = u; r.api = a; console.log(JSON.stringify(r)); process.exit(0); });
  `);
  t.equal(seen.code, 0, seen.out);
  const r = JSON.parse(seen.out) as Record<string, unknown>;
  t.notOk((r['root'] as string[]).includes('var') || (r['root'] as string[]).includes(path.basename(root)), 'no state, secrets or box root inside');
  t.equal(r[path.join(secrets, 'api-key')], 'ENOENT', 'the secrets do not exist inside');
  t.equal(r[path.join(workspace, 'b', 'notes.txt')], 'ENOENT', "another agent's directory does not exist inside");
  t.equal(r['usr'], 'EROFS', 'system directories are read-only');
  t.equal(readFileSync(path.join(dirA, 'out.txt'), 'utf8'), 'written', 'its own directory is writable');
  t.ok((r['pids'] as number) <= 4, `a fresh /proc: only the sandbox's own processes (${String(r['pids'])})`);
  t.equal(r['direct'], 'ENETUNREACH', 'no route out of its network namespace');
  t.equal(r['udp'], 'ENETUNREACH', 'no UDP either');
  t.equal(r['api'], 'from-the-api', 'the forwarded loopback port reaches the box');
});

t.test('the process limit is per agent: a fork bomb stops at it, the box forks on', async (t) => {
  const sandbox = new NamespaceSandbox({ enabled: true, namespaces: 'required', processes: 20, forwards: [], root });
  await sandbox.start();
  const bomb = await runAgent(sandbox, path.join(workspace, 'a'), `
    const { spawn } = require('child_process'); let n = 0, refused = '';
    const next = () => { const c = spawn('/bin/sleep', ['5']); c.on('spawn', () => { n++; next(); }); c.on('error', (e) => { refused = e.code; console.log(JSON.stringify({ n, refused })); process.exit(0); }); };
    next();
  `);
  const r = JSON.parse(bomb.out) as { n: number; refused: string };
  t.equal(r.refused, 'EAGAIN', 'fork refused at the limit');
  t.ok(r.n > 0 && r.n < 20, `stopped below the limit of 20 (${r.n} children)`);
  const after = spawn('/bin/true');
  t.equal(await new Promise((resolve) => after.on('close', resolve)), 0, 'the box itself still starts processes');
});

t.test('as root, the agent is an unprivileged uid on the host', { skip: process.getuid?.() !== 0 ? 'needs root (the test machine runs as root)' : false }, async (t) => {
  const sandbox = new NamespaceSandbox({ enabled: true, namespaces: 'required', processes: 20, forwards: [], root });
  await sandbox.start();
  const w = await sandbox.wrap('/bin/sleep', ['30'], path.join(workspace, 'a'), '/usr/bin:/bin');
  t.same(w.ids, { uid: 65534, gid: 65534 });
  const child = spawn(w.command, w.args, { cwd: path.join(workspace, 'a'), detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe'], ...w.ids });
  await ready(child.stdio[3] as NodeJS.ReadableStream);
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  t.match(status, /^Uid:\s+65534\s+65534\s+65534\s+65534$/m, 'real, effective, saved and fs uid');
  t.match(status, /^Groups:\s*$/m, 'no supplementary groups');
  process.kill(-child.pid!, 'SIGTERM');
  const [, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  t.equal(signal, 'SIGTERM', 'ends as a plain spawn would');
});

t.test('required refuses to spawn where namespaces cannot be used; auto falls back', async (t) => {
  const none = { enabled: true, processes: 20, forwards: [], root, searchPath: path.join(root, 'empty-bin') };
  const required = new NamespaceSandbox({ ...none, namespaces: 'required' });
  await required.start();
  t.equal(required.verdict?.available, false);
  await t.rejects(required.wrap('/bin/true', [], workspace), { code: 'ABX_ERR_CONFLICT', message: /sandbox\.namespaces = "required".*bwrap not found.*sandbox-namespaces/ });
  const auto = new NamespaceSandbox({ ...none, namespaces: 'auto' });
  await auto.start();
  t.same(await auto.wrap('/bin/true', ['x'], workspace), { command: '/bin/true', args: ['x'] }, 'auto: a plain spawn');
  const off = new NamespaceSandbox({ ...none, namespaces: 'off' });
  await off.start();
  t.equal(off.verdict, undefined, 'off: never probed');
});
