// An adversarial agent, copied into its own directory by the sandbox suites: `attack` tries what the box must refuse, `hog` allocates past its budget, `bomb` forks past its process limit.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const http = require('node:http');
const dgram = require('node:dgram');
const dns = require('node:dns');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

const env = process.env;
const print = (value) => process.stdout.write(JSON.stringify(value) + '\n');
const idle = () => setInterval(() => {}, 60_000);

/** An HTTP exchange: resolves with the status, the egress reason header and the body. */
function exchange(options, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ timeout: 10_000, ...options }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, reason: res.headers['x-agentbox-egress'], text }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(body);
  });
}

/** A request through the egress proxy named by HTTP_PROXY: plain HTTP (absolute form) or CONNECT. */
async function viaProxy(method, target, credential = true) {
  const proxy = new URL(env.HTTP_PROXY);
  const auth = 'Basic ' + Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64');
  const host = method === 'CONNECT' ? target : new URL(target).host;
  const headers = { host, ...(credential ? { 'proxy-authorization': auth } : {}) };
  const options = { host: proxy.hostname, port: proxy.port, method, path: target, headers };
  if (method !== 'CONNECT') return exchange(options);
  return new Promise((resolve, reject) => {
    const req = http.request(options);
    req.on('connect', (res, socket) => (socket.destroy(), resolve({ status: res.statusCode, reason: res.headers['x-agentbox-egress'] })));
    req.on('error', reject);
    req.end();
  });
}

/** A call to the management API, with the agent's own token or none. */
async function api(method, route, token, body) {
  const url = new URL(route, env.AGENTBOX_API_URL);
  const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) };
  const r = await exchange({ host: url.hostname, port: url.port, method, path: url.pathname, headers }, body && JSON.stringify(body));
  const code = r.status >= 400 ? JSON.parse(r.text).error : undefined;
  return [r.status, code].filter(Boolean).join(' ');
}

/** 40 sign-ins with wrong keys at the API the agent is given: the distinct outcomes, joined. */
async function signInFlood() {
  const url = new URL('/ui/session', env.AGENTBOX_API_URL);
  const seen = new Set();
  for (let i = 0; i < 40; i++) {
    const r = await exchange({ host: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers: { origin: url.origin, 'content-type': 'application/json' } }, JSON.stringify({ apiKey: `guess-${i}` }));
    seen.add([r.status, r.status >= 400 ? JSON.parse(r.text).error : undefined].filter(Boolean).join(' '));
  }
  return [...seen].join(', ');
}

const connect = (port) =>
  new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, timeout: 5000 }, () => (s.destroy(), resolve('ok')));
    s.on('timeout', () => s.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    s.on('error', reject);
  });

const udp = (port) =>
  new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    s.on('error', reject);
    s.send('ping', port, '127.0.0.1', (err) => (s.close(), err ? reject(err) : resolve('ok')));
  });

/** `ulimit` in a shell: lifting the hard limit on its data segment (its memory) that the box set. */
function raiseLimit() {
  const r = spawnSync('/bin/sh', ['-c', 'ulimit -H -d unlimited'], { encoding: 'utf8' });
  if (r.status === 0) return 'ok';
  return /not permitted/i.test(r.stderr) ? 'EPERM' : `exit ${r.status}: ${r.stderr.trim()}`;
}

/** The static probe (adversarial-probe.c) beside this script: syscalls Node cannot issue; its one word, `ok` or an errno name. */
function probe(...args) {
  const r = spawnSync(path.join(__dirname, 'probe'), args.map(String), { encoding: 'utf8', timeout: 15_000 });
  if (r.error) throw r.error;
  return r.stdout.trim() || `exit ${r.status}: ${r.stderr.trim()}`;
}

/** Every attempt of the `attack` agent, by name; `c` is the test's description of the box. */
const attempts = (c) => ({
  readApiKey: () => fs.readFileSync(c.apiKeyFile),
  readIdentityKey: () => fs.readFileSync(c.identityKeyFile),
  readOtherAgent: () => fs.readFileSync(c.otherFile),
  readApiEnviron: () => fs.readFileSync(`/proc/${c.apiPid}/environ`),
  signalApi: () => process.kill(c.apiPid, 'SIGCONT'),
  signalOtherAgent: () => process.kill(c.victimPid, 'SIGKILL'),
  proxyUnlistedHost: async () => { const r = await viaProxy('GET', 'http://example.com/'); return `${r.status} ${r.reason}`; },
  proxyUnlistedConnect: async () => { const r = await viaProxy('CONNECT', 'example.com:443'); return `${r.status} ${r.reason}`; },
  proxyUnlistedPort: async () => { const r = await viaProxy('GET', `http://127.0.0.1:${c.closedPort}/`); return `${r.status} ${r.reason}`; },
  proxyNoCredential: async () => { const r = await viaProxy('GET', `${c.allowedUrl}/allowed`, false); return `${r.status} ${r.reason}`; },
  tcpDirect: () => connect(c.allowedPort),
  udpSend: () => udp(c.allowedPort),
  dnsResolve: () => dns.promises.resolve4('example.com'),
  dnsLookup: () => dns.promises.lookup('example.com'),
  apiNoToken: () => api('GET', `/v1/agents/${env.AGENTBOX_AGENT_ID}`),
  apiOperatorRoute: () => api('GET', '/v1/agents', env.AGENTBOX_TOKEN),
  apiWidenEgress: () => api('PUT', '/v1/sandbox/egress', env.AGENTBOX_TOKEN, { allow_domains: ['example.com'], allow_ports: [443] }),
  apiOperatorKeyGuess: () => api('GET', '/v1/meta', 'abx_' + 'x'.repeat(43)),
  signInFlood,
  apiOperatorPort: () => connect(c.apiPort),
  raiseLimit,
  writeWorkspaceRoot: () => fs.writeFileSync(path.join(c.workspace, 'planted.txt'), 'x'),
  writeStateDir: () => fs.writeFileSync(path.join(c.stateDir, 'planted.txt'), 'x'),
  writeInstallation: () => fs.writeFileSync(path.join(c.installation, 'dist', 'planted.txt'), 'x'),
  // A file that appeared in the installation after the box started (another box's root, a core file).
  readLaterFile: () => (c.laterFile ? fs.readFileSync(c.laterFile) : 'skipped'),
  readShadow: () => fs.readFileSync('/etc/shadow'),
  // File metadata is not Landlock's: only a uid of the agent's own keeps it off the box's files.
  chmodApiKey: () => (c.agentsShareBoxUid ? 'skipped' : fs.chmodSync(c.apiKeyFile, 0o644)),
  utimeApiKey: () => (c.agentsShareBoxUid ? 'skipped' : fs.utimesSync(c.apiKeyFile, 0, 0)),
  // The same for another agent's own file, and inotify on its directory (names of what it writes).
  chmodOtherAgent: () => (c.agentsShareBoxUid ? 'skipped' : fs.chmodSync(c.otherAgentOwnFile, 0o666)),
  utimeOtherAgent: () => (c.agentsShareBoxUid ? 'skipped' : fs.utimesSync(c.otherAgentOwnFile, 0, 0)),
  watchOtherAgent: () => (c.agentsShareBoxUid ? 'skipped' : fs.watch(path.dirname(c.otherAgentOwnFile)).close()),
  writeEtc: () => fs.writeFileSync('/etc/planted.txt', 'x'),
  // TCP connections without connect(2), to a listening port Landlock denies (the allowed host's, direct).
  tcpFastOpen: () => probe('fastopen', c.allowedPort),
  tcpFastOpenSendmsg: () => probe('fastopen-sendmsg', c.allowedPort),
  tcpFastOpenSendmmsg: () => probe('fastopen-sendmmsg', c.allowedPort),
  tcpFastOpenConnectOption: () => probe('fastopen-connect-opt', c.allowedPort),
  tcpSendtoAddress: () => probe('sendto-address', c.allowedPort),
  mptcpSocket: () => probe('mptcp'),
  // Acting on the API by its pid (each a read, or setting back the value just read: harmless if let through).
  prlimitApi: () => probe('prlimit', c.apiPid),
  setpriorityApi: () => probe('setpriority', c.apiPid),
  setpriorityUser: () => probe('setpriority-user'),
  schedSetaffinityApi: () => probe('sched-setaffinity', c.apiPid),
  schedSetschedulerApi: () => probe('sched-setscheduler', c.apiPid),
  ioprioApi: () => probe('ioprio', c.apiPid),
  // The same on another agent: of the agent's own uid wherever the box runs (the API is so in the container).
  prlimitOtherAgent: () => probe('prlimit', c.victimPid),
  setpriorityOtherAgent: () => probe('setpriority', c.victimPid),
  schedSetaffinityOtherAgent: () => probe('sched-setaffinity', c.victimPid),
  schedSetschedulerOtherAgent: () => probe('sched-setscheduler', c.victimPid),
  ioprioOtherAgent: () => probe('ioprio', c.victimPid),
  robustListApi: () => probe('get-robust-list', c.apiPid),
  movePagesApi: () => probe('move-pages', c.apiPid),
  kcmpApi: () => probe('kcmp', c.apiPid),
  sigqueueApi: () => probe('sigqueue', c.apiPid),
  tgkillApi: () => probe('tgkill', c.apiPid),
  pidfdSignalApi: () => probe('pidfd-signal', c.apiPid),
  // Extended attributes, which btrfs keeps where the disk budget does not look.
  setxattr: () => probe('setxattr'),
  lsetxattr: () => probe('lsetxattr'),
  fsetxattr: () => probe('fsetxattr'),
  setxattrat: () => probe('setxattrat'),
  // Channels outside the file system: SysV IPC and POSIX message queues.
  sysvShm: () => probe('sysv-shm'),
  sysvMsg: () => probe('sysv-msg'),
  sysvSem: () => probe('sysv-sem'),
  posixMqueue: () => probe('mq-open'),
  // Hiding its descriptors (the memory files it holds) from the box's accounting.
  undumpable: () => probe('undumpable'),
  fanotify: () => probe('fanotify'),
  // What the agent may do, so that a refusal above is the policy and not a broken agent.
  writeOwn: () => fs.writeFileSync(path.join(process.cwd(), 'own.txt'), 'x'),
  prlimitSelf: () => probe('prlimit-self'),
  setprioritySelf: () => probe('setpriority-self'),
  dumpableAgain: () => probe('dumpable-again'),
  apiOwnRecord: () => api('GET', `/v1/agents/${env.AGENTBOX_AGENT_ID}`, env.AGENTBOX_TOKEN),
  proxyAllowed: async () => { const r = await viaProxy('GET', `${c.allowedUrl}/allowed`); return `${r.status}`; },
  providerBroker: async () => {
    const url = new URL(`${env[`${c.provider}_BASE_URL`]}/v1/messages`);
    const r = await exchange({ host: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers: { 'x-api-key': env.AGENTBOX_TOKEN, 'content-type': 'application/json' } }, '{"model":"stand-in"}');
    const echo = JSON.parse(r.text);
    // What reached the provider: the box put the real key in place of the agent's token.
    return `${r.status} ${echo.url} ${echo.headers['x-api-key'] === env.AGENTBOX_TOKEN ? 'token' : echo.headers['x-api-key']}`;
  },
});

/** Each attempt in turn, with the outcome (`ok`, an error code or an HTTP status) and /ready's status right after it. */
async function attack(c) {
  // The token, for the test to try once this agent has exited.
  fs.writeFileSync('token.txt', env.AGENTBOX_TOKEN);
  const out = {};
  for (const [name, attempt] of Object.entries(attempts(c))) {
    let outcome;
    try {
      const value = await attempt();
      outcome = typeof value === 'string' ? value : 'ok';
    } catch (err) {
      outcome = err.code ?? String(err.message);
    }
    const ready = await exchange({ host: '127.0.0.1', port: new URL(env.AGENTBOX_API_URL).port, path: '/ready' }).then((r) => r.status, (e) => e.code);
    out[name] = { outcome, ready };
  }
  print(out);
}

/** Touch `mib` MiB, 16 MiB at a time, then stay. */
function hog(mib) {
  const kept = [];
  for (let i = 0; i < mib; i += 16) kept.push(Buffer.alloc(16 * 2 ** 20, 1));
  print({ allocatedMiB: kept.length * 16 });
  idle();
}

/** Start `n` sleeping children without waiting for any, counting the refusals by code, then stay. */
function bomb(n) {
  let started = 0;
  const refused = {};
  let settled = 0;
  const done = () => ++settled === n && print({ started, refused });
  for (let i = 0; i < n; i++) {
    const child = spawn('/bin/sleep', ['120'], { stdio: 'ignore' });
    child.once('spawn', () => (started++, done()));
    child.once('error', (err) => ((refused[err.code] = (refused[err.code] ?? 0) + 1), done()));
  }
  idle();
}

const [mode, arg] = process.argv.slice(2);
if (mode === 'attack') void attack(JSON.parse(arg));
else if (mode === 'hog') hog(Number(arg));
else if (mode === 'bomb') bomb(Number(arg));
else throw new Error(`adversarial-agent.cjs: unknown mode ${mode} (attack, hog, bomb)`);
