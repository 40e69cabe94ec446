// A start that fails part-way leaves nothing running: the services started before the failing one are closed (no listener, socket, timer or open file left), and plugins out of order are refused.
import t from 'tap';
import { createHook } from 'node:async_hooks';
import net from 'node:net';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import Fastify from 'fastify';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';
import { FatalAdapterError } from '../../management-api/src/adapter-errors.js';
import { resolverPlugin } from '../../management-api/src/adapters/resolver-plugin.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';
import { buildApp } from '../../management-api/src/app.js';
import { sqliteRegistryFile } from '../../management-api/src/mesh/host/open-registry.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { freePort } from './support/tcp-backend.js';
import { tcpAdapterModule } from './support/tcp-adapter.js';
import { ALL_OFF, FAST_TIMING, captureLogs, makeRoot, manifestFrom, startTestServer } from './support/harness.js';

/** Handles that a service left running would hold: timers, sockets, servers, pipes, pending file operations. */
const HELD = /^(Timeout|TCPSocketWrap|TCPServerWrap|TCPWRAP|PipeWrap|PipeConnectWrap|FSReqCallback|FSReqPromise|FSEventWrap|StatWatcher)$/;

function heldHandles(): string[] {
  return process
    .getActiveResourcesInfo()
    .filter((r) => HELD.test(r))
    .sort();
}

/**
 * Timers, sockets, servers and pipes created from now on and not yet destroyed, unreferenced ones
 * included (which `process.getActiveResourcesInfo` does not list); `stop` ends the watch.
 */
function watchResources(): { alive: () => string[]; stop: () => void } {
  const alive = new Map<number, string>();
  const hook = createHook({
    init: (id, type) => {
      if (/^(Timeout|TCPWRAP|TCPSERVERWRAP|PIPEWRAP|PIPESERVERWRAP|PIPECONNECTWRAP|TCPCONNECTWRAP|FSEVENTWRAP|STATWATCHER)$/.test(type)) alive.set(id, type);
    },
    destroy: (id) => void alive.delete(id),
  }).enable();
  return { alive: () => [...alive.values()].sort(), stop: () => void hook.disable() };
}

/** The files under `dir` this process holds open. */
function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch {
      // Closed between the listing and the read (the listing's own descriptor is one).
    }
  }
  return open;
}

/** Let closes that were started settle (a closed socket leaves the list on the next turn). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

// A mesh host (its registry an SQLite file under the root), an egress controller retrying a socket
// nobody serves, idle compaction's timer: all started before the adapters, whose critical
// orchestrator then cannot connect.
const member = npubEncode(getPublicKey(generateSecretKey()));
const hostToml = `${ALL_OFF.replace('orchestrator = "off"', 'orchestrator = "local-procmgr"')}[mesh]\nmode = "host"\nallowed_pubkeys = ["${member}"]\n`;

t.test('a critical slot that cannot connect: buildApp throws its error, and every service started before the adapters is closed', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  const { manifest, sha256 } = await manifestFrom(hostToml);
  const logs = captureLogs();
  const nobody = await freePort();
  await settle();
  const before = heldHandles();
  const created = watchResources();
  t.teardown(created.stop);
  const err: unknown = await buildApp({
    manifest,
    manifestSha256: sha256,
    paths: root.paths,
    logger: createLogger({ level: 'info', destination: logs.destination }),
    metrics: createMetrics({ version: 'test', imageHash: 'test', manifestSha256: sha256 }),
    metricsUrl: 'http://127.0.0.1:9/metrics',
    env: {},
    timing: { ...FAST_TIMING, idleCompactionMs: 60_000 },
    overrides: { orchestrator: tcpAdapterModule('orchestrator', nobody) },
    egress: { socketPath: `${root.paths.runDir}/no-proxy.sock`, timing: { retryMinMs: 20, retryMaxMs: 100 } },
    programs: async () => undefined,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, FatalAdapterError, "the failing plugin's own error");
  t.equal((err as FatalAdapterError).slot, 'orchestrator');
  t.ok(existsSync(sqliteRegistryFile(root.paths)), 'the mesh host had opened its registry before the adapters started');
  await settle();
  t.same(heldHandles(), before, 'no timer, socket, server or file operation left behind');
  t.same(
    created.alive(),
    [],
    "every timer, socket and pipe the start created is gone, unreferenced ones too (idle compaction, the egress controller's retries)",
  );
  t.same(openFilesUnder(root.dir), [], 'the registry and the key files are closed');
});

t.test(
  "the API port taken: the start fails, the agents' listener and the metrics listener are closed, and a new start on that port succeeds once it is free",
  async (t) => {
    const port = await freePort();
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    await settle();
    const before = heldHandles();
    const root = await makeRoot();
    await t.rejects(startTestServer({ toml: hostToml.replace('orchestrator = "local-procmgr"', 'orchestrator = "off"'), apiPort: port, root }), {
      code: 'EADDRINUSE',
    });
    await settle();
    t.same(heldHandles(), before, 'no listener, socket or timer left behind');
    await new Promise<void>((resolve) => squatter.close(() => resolve()));
    const box = await startTestServer({ toml: ALL_OFF, apiPort: port });
    t.teardown(() => box.close());
    t.equal(box.server.apiPort, port);
  },
);

t.test('a plugin registered before those it depends on is refused by name', async (t) => {
  const app = Fastify();
  app.register(resolverPlugin, {} as never);
  // after() without a callback answers a promise, typed as the (thenable) instance.
  await t.rejects(async () => {
    await app.after();
  }, /The dependency 'agentbox-\S+' of plugin 'agentbox-adapters' is not registered/);
  await app.close();
});
