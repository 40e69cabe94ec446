// End to end in a container: [security.exceptions.sandbox-namespaces] runs the box with the
// rendered seccomp profile (no-new-privileges and no capabilities kept), and an agent then runs
// in bubblewrap: its own PID namespace (only its own processes in a fresh /proc, or the outer
// /proc read-only with other processes' environ denied), no network but loopback, and the egress
// proxy reached through the forwarder.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { startPrivateEngine } from '../../scripts/cli/image/private-engine.js';
import { containerProcesses, e2eSkipped, prepareBox, removeBox, waitReady } from './support/compose-box.js';
import { waitFor } from '../helpers/wait.js';

const PROXY_PORT = 3128;
/** The fields of an agent's answer the case reads. */
type AgentAnswer = { agent: { id: string; state: string } };
const manifest = (p: { api: number; metrics: number }) => `[agentbox]
name = "e2e-namespaces"

[api]
port = ${p.api}

[observability]
metrics_port = ${p.metrics}

[sandbox]
namespaces = "required"

[sandbox.egress]
port = ${PROXY_PORT}

[security]
audit_acknowledged = true

[security.exceptions.sandbox-namespaces]
reason = "end-to-end case: each agent in bubblewrap inside the container"
`;

// What the agent reports about itself, as one JSON line: its pid as it sees it, the pids /proc
// lists, whether it can read the environ of the container's PID 1 (tini) and of the API, its
// network interfaces (from /proc/self/net/dev: the launcher refuses netlink sockets), a direct connection to the proxy's port on a non-loopback address, and a
// CONNECT through the proxy its HTTP_PROXY names (with its proxy credential) to a host not allowed.
const AGENT = String.raw`
const fs = require('fs'), net = require('net');
const apiPid = Number(process.argv[1]);
const tryRead = (p) => { try { fs.readFileSync(p); return 'read'; } catch (e) { return e.code; } };
const connect = (host, port, send) => new Promise((resolve) => {
  const s = net.connect({ host, port });
  let got = '';
  s.setTimeout(4000, () => { s.destroy(); resolve('timeout'); });
  s.on('connect', () => { if (!send) { s.end(); resolve('connected'); } else s.write(send); });
  s.on('data', (d) => { got += d; if (got.includes('\r\n')) { s.destroy(); resolve(got.split('\r\n')[0]); } });
  s.on('error', (e) => resolve(e.code));
  s.on('close', () => resolve(got.split('\r\n')[0] || 'closed'));
});
(async () => {
  const r = { pid: process.pid };
  r.pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
  r.initEnviron = tryRead('/proc/1/environ');
  r.apiEnviron = tryRead('/proc/' + apiPid + '/environ');
  r.secrets = tryRead('${boxFacts.runtime.files.apiKeyFile}');
  r.interfaces = fs.readFileSync('/proc/self/net/dev', 'utf8').split('\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean);
  r.direct = await connect('192.0.2.1', ${PROXY_PORT});
  const proxy = new URL(process.env.HTTP_PROXY);
  const auth = Buffer.from(decodeURIComponent(proxy.username) + ':' + decodeURIComponent(proxy.password)).toString('base64');
  r.proxyUrl = proxy.hostname + ':' + proxy.port;
  r.proxy = await connect(proxy.hostname, Number(proxy.port), 'CONNECT example.invalid:443 HTTP/1.1\r\nHost: example.invalid:443\r\nProxy-Authorization: Basic ' + auth + '\r\n\r\n');
  console.log('REPORT ' + JSON.stringify(r));
})();
`;

t.test(
  'with the sandbox-namespaces exception an agent in the container runs in bubblewrap',
  { skip: e2eSkipped && 'AGENTBOX_E2E=skip', timeout: 600_000 },
  async (t) => {
    const engine = await startPrivateEngine();
    t.teardown(() => engine.stop());
    const box = await prepareBox(engine, manifest);
    t.teardown(() => removeBox(box));
    const profile = readFileSync(path.join(box.dir, boxFacts.sandboxNamespaces.profileFile), 'utf8');
    t.ok(JSON.parse(profile).syscalls.length > 0, 'agentbox render wrote the profile beside docker-compose.yml');

    const up = box.compose('up', '-d');
    t.equal(up.status, 0, `docker-compose up -d: ${up.stderr}`);
    await waitReady(box).catch((err: Error) => {
      throw new Error(`${err.message}\n${box.logs().slice(-4000)}`);
    });

    // The container: the profile's rules and no-new-privileges, no capability, uid 1000.
    const options = box.inspect()['HostConfig']['SecurityOpt'] as string[];
    t.ok(options.includes('no-new-privileges:true'), 'no-new-privileges is kept');
    const seccomp = options.find((o) => o.startsWith('seccomp='));
    t.ok(seccomp, 'a seccomp profile is given to the engine');
    t.same(JSON.parse(seccomp!.slice('seccomp='.length)), JSON.parse(profile), 'the rendered profile, as compose read it');
    t.equal(
      box.inspect()['Config']['Labels']['dev.agentbox.exception.sandbox-namespaces'],
      'end-to-end case: each agent in bubblewrap inside the container',
      'the audit label carries the reason',
    );
    const procs = containerProcesses(box);
    for (const p of procs) t.equal(p.capEff, '0000000000000000', `${p.cmd.slice(0, 50)}: CapEff 0`);
    const api = procs.find((p) => /box\/management-api\.js/.test(p.cmd));
    t.ok(api, 'the API process');

    const health = await box.call<{ sandbox?: { namespaces?: unknown } }>('GET', '/health');
    const ns = health.body['sandbox']?.['namespaces'] as { setting: string; active?: boolean; proc?: string; reason?: string };
    t.equal(ns?.active, true, `the probe found bubblewrap usable (${JSON.stringify(ns)})`);

    const spawned = await box.call<AgentAnswer>('POST', '/v1/agents', { name: 'inspector', command: '/usr/bin/node', args: ['-e', AGENT, String(api!.pid)] });
    t.equal(spawned.status, 201, `spawned (${JSON.stringify(spawned.body)})`);
    const id = spawned.body['agent']['id'] as string;
    const state = await waitFor(
      'the agent to end',
      async () => {
        const s = (await box.call<AgentAnswer>('GET', `/v1/agents/${id}`)).body['agent']['state'] as string;
        return s === 'starting' || s === 'running' ? undefined : s;
      },
      30_000,
      250,
    );
    const output = await box.call('GET', `/v1/agents/${id}/output`);
    const text = (output.body['chunks'] as Array<{ text: string }>).map((c) => c.text).join('');
    t.equal(state, 'exited', `the agent exited 0 (output: ${text.slice(0, 2000)})`);
    const line = /^REPORT (.*)$/m.exec(text);
    t.ok(line, `the agent reported (output: ${text.slice(0, 2000)})`);
    const r = JSON.parse(line![1]!) as {
      pid: number;
      pids: number[];
      initEnviron: string;
      apiEnviron: string;
      secrets: string;
      interfaces: string[];
      direct: string;
      proxyUrl: string;
      proxy: string;
    };

    // Its own PID namespace: bwrap's init is 1 there, the launcher exec'd into the agent next.
    t.ok(r.pid < 10, `the agent is pid ${r.pid} in its own PID namespace`);
    t.not(r.pid, api!.pid, 'not a pid of the container');
    if (ns.proc === 'fresh') {
      t.notOk(r.pids.includes(api!.pid), 'a fresh /proc lists only its own processes, not the API');
    } else {
      t.equal(ns.proc, 'ro-bind', "the container's masked /proc: the outer /proc bound read-only");
      t.equal(r.initEnviron, 'EACCES', "PID 1's environ stays denied");
      t.equal(r.apiEnviron, 'EACCES', "the API's environ stays denied");
    }
    t.equal(r.secrets, 'ENOENT', 'the API key does not exist inside');
    t.same(r.interfaces, ['lo'], 'only loopback');
    t.equal(r.direct, 'ENETUNREACH', "the proxy's port on another address: no route out of its network namespace");
    t.equal(r.proxyUrl, `127.0.0.1:${PROXY_PORT}`, 'HTTP_PROXY names the proxy on loopback, unchanged');
    t.match(r.proxy, /^HTTP\/1\.[01] 403/, 'the egress proxy answers through the forwarder (and refuses a host not listed)');
  },
);
