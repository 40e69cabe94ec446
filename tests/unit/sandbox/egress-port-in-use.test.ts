// The egress proxy on a port another programme holds: it does not start, and says in one line the
// port, the programme, the manifest key and the variable that move it.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '../../../management-api/src/observability/logger.js';
import { runEgressProxy } from '../../../management-api/src/egress/proxy-main.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';

t.test('a port in use is refused naming the port, the programme, sandbox.egress.port and AGENTBOX_EGRESS_PORT', async (t) => {
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
  const err = (await runEgressProxy(env, createLogger({ level: 'silent' })).then(
    () => undefined,
    (e: unknown) => e,
  )) as Error;
  t.equal(err?.name, 'PortInUseError');
  t.match(
    err.message,
    new RegExp(
      `^port ${port} on 127\\.0\\.0\\.1 is already in use: the egress proxy \\(programme egress-proxy, manifest key sandbox\\.egress\\.port, override AGENTBOX_EGRESS_PORT\\)`,
    ),
  );
  t.notOk(err.message.includes('\n'), 'one line');
});
