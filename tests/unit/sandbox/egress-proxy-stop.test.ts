// The egress proxy programme stops with tunnels still open: an agent (or a client it left behind)
// that keeps a CONNECT tunnel open must not hold the proxy's stop, and the tunnel ends with it.
import t from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureApiKey } from '../../../management-api/src/auth/api-key-file.js';
import { newProxyCredential } from '../../../management-api/src/egress/agent-credential.js';
import { ControlClient } from '../../../management-api/src/egress/control-client.js';
import { runEgressProxy } from '../../../management-api/src/egress/proxy-main.js';
import { createLogger } from '../../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';

t.test('close() ends open tunnels instead of waiting for them', async (t) => {
  const held: net.Socket[] = [];
  const upstream = net.createServer((s) => void held.push(s));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  t.teardown(() => {
    for (const s of held) s.destroy();
    upstream.close();
  });
  const port = (upstream.address() as net.AddressInfo).port;

  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-proxy-stop-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const paths = runtimePaths({ AGENTBOX_ROOT: dir });
  const manifest = path.join(dir, 'agentbox.toml');
  writeFileSync(manifest, `[sandbox.egress]\nallow_domains = ["127.0.0.1"]\nallow_ports = [${port}]\n`);
  const logger = createLogger({ level: 'silent' });
  const { key } = await ensureApiKey(paths.apiKeyFile, logger);
  const proxy = await runEgressProxy({ AGENTBOX_ROOT: dir, AGENTBOX_MANIFEST: manifest, AGENTBOX_EGRESS_PORT: '0' }, logger);
  const client = await new Promise<ControlClient>((ok) => {
    const c: ControlClient = new ControlClient({
      socketPath: paths.egressControlSocket,
      apiKey: key,
      onConnect: async (): Promise<void> => ok(c),
      onDecision: () => undefined,
      onStateChange: () => undefined,
      timing: { retryMinMs: 20, retryMaxMs: 100 },
    });
    c.start();
  });
  t.teardown(() => client.close());
  const { secret, hash } = newProxyCredential();
  await client.call({ op: 'register', agent: 'agt_stop', hash });

  // Through the TCP port and through the sandboxes' socket, as agents in either mode reach it.
  const tunnels = [net.connect(proxy.port, '127.0.0.1'), net.connect(paths.sandboxEgressSocket)];
  for (const s of tunnels) {
    s.write(
      `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: Basic ${Buffer.from(`agt_stop:${secret}`).toString('base64')}\r\n\r\n`,
    );
    const [data] = (await once(s, 'data')) as [Buffer];
    t.match(data.toString('latin1'), /^HTTP\/1\.1 200/, 'the tunnel is open');
  }
  const closed = tunnels.map((s) => once(s, 'close'));
  const outcome = await Promise.race([
    proxy.close().then(() => 'stopped'),
    new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000).unref()),
  ]);
  t.equal(outcome, 'stopped', 'the proxy stops');
  await Promise.all(closed);
  t.pass('and every tunnel ended with it');
});
