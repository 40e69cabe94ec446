// The egress proxy on a port another programme holds: it does not start, and says which key moves it.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../../management-api/src/observability/logger.js';
import { runEgressProxy } from '../../../management-api/src/egress/proxy-main.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';

t.test('a port in use is refused naming sandbox.egress.port', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-egress-port-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const holder = createServer();
  await new Promise<void>((ok) => holder.listen(0, '127.0.0.1', () => ok()));
  t.teardown(() => holder.close());
  const port = (holder.address() as { port: number }).port;
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  mkdirSync(paths.runDir, { recursive: true });
  const manifest = path.join(root, 'agentbox.toml');
  writeFileSync(manifest, `[sandbox.egress]\nport = ${port}\n`);
  const env = { AGENTBOX_ROOT: root, AGENTBOX_MANIFEST: manifest };
  await t.rejects(runEgressProxy(env, createLogger({ level: 'silent' })), { message: `sandbox.egress.port ${port} is already in use on 127.0.0.1 (another box on this machine?); choose a free port in [sandbox.egress] port` });
});
