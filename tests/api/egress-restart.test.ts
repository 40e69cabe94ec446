// Egress credentials and the allowlist across restarts: the real proxy programme, a real API stopped and started again
// on the same box root, a TCP echo server on 127.0.0.1. No credential outlives the API that issued it, and the reported
// source of the allowlist is the one the proxy enforces.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { newProxyCredential } from '../../management-api/src/egress/agent-credential.js';
import { makeRoot, startTestServer, type TestServer } from './support/harness.js';
import { startProxyProgramme as startProxy } from './support/egress-proxy-programme.js';
import { waitFor } from '../helpers/wait.js';

/** The status of a CONNECT to `target` through the proxy with `auth` (`id:secret`). */
function connectStatus(port: number, target: string, auth: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (!got.includes('\r\n\r\n')) return;
      s.destroy();
      resolve(Number(got.split(' ')[1]));
    });
    s.once('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: Basic ${Buffer.from(auth).toString('base64')}\r\n\r\n`);
  });
}

/** A control connection of its own (as a previous API's would be) that registers `agent` and stays open. */
async function registerAside(socketPath: string, key: string, agent: string): Promise<{ auth: string; close: () => void }> {
  const { secret, hash } = newProxyCredential();
  const s = net.connect(socketPath);
  let got = '';
  s.on('data', (d: Buffer) => (got += d.toString()));
  s.write(`${JSON.stringify({ id: 1, op: 'hello', key })}\n${JSON.stringify({ id: 2, op: 'register', agent, hash })}\n`);
  await waitFor('the registration', () => got.split('\n').filter((l) => l.includes('"ok":true')).length === 2);
  return { auth: `${agent}:${secret}`, close: () => s.destroy() };
}

const credentialOf = (env: Record<string, string>): string => {
  const u = new URL(env['HTTP_PROXY']!);
  return `${u.username}:${u.password}`;
};

t.test('credentials and the allowlist across API and proxy restarts', async (t) => {
  const echo = net.createServer((s) => s.on('error', () => undefined).pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  t.teardown(() => echo.close());
  const echoPort = (echo.address() as net.AddressInfo).port;
  const byName = `localhost:${echoPort}`;
  const byAddress = `127.0.0.1:${echoPort}`;
  const root = await makeRoot();
  t.teardown(root.cleanup);
  const manifestFile = path.join(root.dir, 'agentbox.toml');
  const toml = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n[sandbox.egress]\nallow_domains = ["localhost"]\nallow_ports = [${echoPort}]\n`;
  writeFileSync(manifestFile, toml);
  const { key } = await ensureApiKey(root.paths.apiKeyFile, createLogger({ level: 'silent' }));
  let proxy = await startProxy(root.dir, manifestFile);
  t.teardown(() => void proxy.proc.kill());
  const egressSetting = { socketPath: root.paths.egressControlSocket, timing: { retryMinMs: 20, retryMaxMs: 100 } };
  // Stopped with server.close(), not TestServer.close(): that would remove the root the next API starts in.
  const startApi = async (): Promise<TestServer> => {
    const api = await startTestServer({ toml, root, egress: egressSetting });
    let closing: Promise<void> | undefined;
    const stop = api.server.close.bind(api.server);
    const close = (): Promise<void> => (closing ??= stop());
    api.server.close = close;
    t.teardown(close);
    await waitFor('the control channel', () => api.server.app.agentbox.egress!.status().reachable);
    return api;
  };
  const runtimeList = { allow_domains: ['localhost', '127.0.0.1'], allow_ports: [echoPort] };

  // The first API: a credential for an agent, a runtime allowlist; beside it, a credential registered on a connection of its own.
  const first = await startApi();
  const agentAuth = credentialOf(await first.server.app.agentbox.egress!.issue('agt_before'));
  t.equal(await connectStatus(proxy.port, byName, agentAuth), 200, "the first API's agent reaches a listed host");
  t.match((await first.api('/v1/sandbox/egress', { method: 'PUT', body: runtimeList })).json, { source: 'runtime', allow_domains: runtimeList.allow_domains });
  t.equal(await connectStatus(proxy.port, byAddress, agentAuth), 200, 'the runtime list is in force');
  const aside = await registerAside(root.paths.egressControlSocket, key, 'agt_aside');
  t.teardown(aside.close);
  t.equal(await connectStatus(proxy.port, byName, aside.auth), 200);

  await t.test('the API stops: the credentials it issued stop with it', async (t) => {
    await first.server.close();
    await waitFor('the proxy to drop them', async () => (await connectStatus(proxy.port, byName, agentAuth)) === 407);
    t.equal(await connectStatus(proxy.port, byName, agentAuth), 407, 'a credential of the stopped API is refused');
  });

  let second: TestServer;
  await t.test('a restarted API replaces the whole credential set and puts back the manifest list, reported as such', async (t) => {
    second = await startApi();
    t.equal(await connectStatus(proxy.port, byName, aside.auth), 407, 'a credential the new API does not know is gone');
    t.equal(await connectStatus(proxy.port, byName, agentAuth), 407);
    const view = (await second.api('/v1/sandbox/egress')).json;
    t.same([view['source'], view['allow_domains'], view['allow_ports']], ['manifest', ['localhost'], [echoPort]], 'the API reports the manifest list');
    const fresh = credentialOf(await second.server.app.agentbox.egress!.issue('agt_after'));
    t.equal(await connectStatus(proxy.port, byName, fresh), 200, "the new API's agent works");
    t.equal(await connectStatus(proxy.port, byAddress, fresh), 403, 'and the list in force is the manifest one it reports');

    await t.test('a restarted proxy gets the runtime list back and reports it as runtime', async (t) => {
      t.match((await second.api('/v1/sandbox/egress', { method: 'PUT', body: runtimeList })).json, { source: 'runtime' });
      proxy.proc.kill('SIGTERM');
      await new Promise((r) => proxy.proc.once('exit', r));
      const egress = second.server.app.agentbox.egress!;
      await waitFor('the API to notice', () => !egress.status().reachable);
      proxy = await startProxy(root.dir, manifestFile);
      await waitFor('the reconnection', () => egress.status().reachable);
      const view = (await second.api('/v1/sandbox/egress')).json;
      t.same([view['source'], view['allow_domains'], view['port']], ['runtime', runtimeList.allow_domains, proxy.port]);
      t.equal(await connectStatus(proxy.port, byAddress, fresh), 200, "the live agent's credential and the runtime list were synced again");
      t.equal(await connectStatus(proxy.port, byName, agentAuth), 407, 'the dead one was not');
    });
  });
});
