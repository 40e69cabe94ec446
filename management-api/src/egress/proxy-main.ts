// The egress proxy programme: reads [sandbox.egress] from the manifest, listens on 127.0.0.1:<port>, on the sandbox egress socket and on its control socket.
import { chmod, mkdir, rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { loadValidatedBoxManifest } from '../manifest/load-box-manifest.js';
import { runtimePaths } from '../runtime-paths.js';
import { listenPort } from '../server-config.js';
import { portInUseLine } from '../box-ports.js';
import { Allowlist } from './allowlist.js';
import { startControlServer, type ControlServer } from './control-server.js';
import type { PolicySource } from './control-protocol.js';
import { CredentialStore } from './credential-store.js';
import { createEgressProxy } from './proxy.js';
import type { Resolver } from './decision.js';
import { tunnelRelayFrom } from './tunnel.js';
import { policyOf } from '../policy/compiled-cache.js';
import type { Approver } from '../policy/settle.js';

/** The proxy's port is taken: a start failure that no restart mends (the message is the one line to show). */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
}

/** The running programme. */
export interface EgressProxyRun {
  port: number;
  socketPath: string;
  close(): Promise<void>;
}

/**
 * Start the proxy with the manifest the box runs with (AGENTBOX_MANIFEST) and its allowlist,
 * on `sandbox.egress.port` (AGENTBOX_EGRESS_PORT overrides it; 0 = any free port, for parallel
 * runs), and its control socket under the run dir. AGENTBOX_EGRESS_RELAY=pipe selects the
 * stream relay for tunnels instead of the reused read buffer (tunnel.ts). The proxy
 * knows no credential until the API registers one: every request is refused with 407 until then,
 * and again once that API's control connection closes (control-server.ts).
 */
export async function runEgressProxy(env: Readonly<Record<string, string | undefined>>, logger: Logger, resolve?: Resolver): Promise<EgressProxyRun> {
  const paths = runtimePaths(env);
  const { manifest } = await loadValidatedBoxManifest(env);
  const egress = manifest.sandbox.egress;
  const manifestList = new Allowlist({ allow_domains: [...egress.allow_domains], allow_ports: [...egress.allow_ports] });
  let allowlist = manifestList;
  let source: PolicySource = 'manifest';
  const credentials = new CredentialStore();
  let control: ControlServer | undefined;
  const relay = tunnelRelayFrom(env);
  // A supervised ask goes to the API's approvals queue; the proxy's own deadline is the queue's plus a margin, so the queue's timeout is the one reported.
  const askTimeoutMs = (manifest.policy.approval_timeout_sec + 5) * 1000;
  const approver: Approver = {
    hold: async (decision, action, context) =>
      control && action.kind === 'egress'
        ? control.ask(context?.agentId ?? null, decision, action, askTimeoutMs)
        : { approved: false, reason: 'no approver reachable' },
  };
  const server = createEgressProxy({
    credentials,
    allowlist: () => allowlist,
    onDecision: (d) => control?.publish(d),
    relay,
    policy: policyOf(manifest.policy),
    approver,
    ...(resolve ? { resolve } : {}),
  });
  const port = listenPort(env, 'AGENTBOX_EGRESS_PORT', egress.port);
  await new Promise<void>((ok, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      // Another box on this machine (or any programme) holds the port: say which key moves it.
      if (err.code === 'EADDRINUSE')
        fail(
          new PortInUseError(
            portInUseLine({
              name: 'egress proxy',
              program: 'egress-proxy',
              key: 'sandbox.egress.port',
              envVar: 'AGENTBOX_EGRESS_PORT',
              host: '127.0.0.1',
              port,
            }),
          ),
        );
      else fail(err);
    });
    server.listen(port, '127.0.0.1', () => ok());
  });
  const bound = (server.address() as AddressInfo).port;
  // Every client connection, both ways in (TCP and the sandboxes' socket): a CONNECT tunnel leaves
  // the HTTP server's own list once it is a tunnel, and a stop must not wait on one an agent keeps open.
  const open = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  server.on('connection', track);
  const sandboxSocket = await listenForSandboxes(server, paths.sandboxEgressSocket).catch((err: unknown) => {
    server.close();
    throw err;
  });
  control = await startControlServer({
    socketPath: paths.egressControlSocket,
    apiKeyFile: paths.apiKeyFile,
    credentials,
    port: () => bound,
    getPolicy: () => allowlist,
    getSource: () => source,
    setPolicy: (next) => {
      allowlist = next;
      source = 'runtime';
      logger.info(
        { event: 'EgressPolicyChanged', source, allowDomains: next.policy.allow_domains.length, allowPorts: next.policy.allow_ports },
        'egress allowlist replaced',
      );
    },
    resetPolicy: () => {
      if (source === 'manifest') return;
      allowlist = manifestList;
      source = 'manifest';
      logger.info(
        { event: 'EgressPolicyChanged', source, allowDomains: manifestList.policy.allow_domains.length, allowPorts: manifestList.policy.allow_ports },
        "egress allowlist back to the manifest's",
      );
    },
    onControllerGone: (dropped) =>
      logger.warn(
        { event: 'EgressControllerGone', dropped },
        'the API that registered the agent credentials disconnected: its credentials are dropped until it syncs again',
      ),
    onDropped: (count) => logger.warn({ event: 'EgressDecisionsDropped', count }, 'no API subscribed: oldest egress decisions dropped'),
  }).catch(async (err: unknown) => {
    server.close();
    await sandboxSocket.close();
    throw err;
  });
  logger.info(
    { event: 'EgressProxyListening', port: bound, sandboxSocket: paths.sandboxEgressSocket, control: paths.egressControlSocket, relay },
    `egress proxy on 127.0.0.1:${bound}`,
  );
  return {
    port: bound,
    socketPath: paths.egressControlSocket,
    async close() {
      server.closeAllConnections();
      for (const socket of open) socket.destroy();
      await Promise.all([new Promise<void>((ok) => server.close(() => ok())), sandboxSocket.close(), control?.close()]);
    },
  };
}

/**
 * Listen on `socket` for agents in their own network namespace (their forwarder connects to it)
 * and hand each connection to the proxy's HTTP server as if it had come to the TCP port: the
 * same decisions, credentials and relay, with no process between the agent's forwarder and the
 * proxy. A socket left by a crashed run is replaced; connectable by every user, as an agent
 * dropped to an unprivileged uid must be (it leads only to what 127.0.0.1:<port> leads to).
 */
async function listenForSandboxes(proxy: net.Server, socket: string): Promise<{ close(): Promise<void> }> {
  await mkdir(path.dirname(socket), { recursive: true });
  await rm(socket, { force: true });
  const listener = net.createServer((connection) => proxy.emit('connection', connection));
  // The proxy's own ceiling does not see connections handed to it: the same one here.
  listener.maxConnections = proxy.maxConnections;
  await new Promise<void>((ok, fail) => {
    listener.once('error', (err: NodeJS.ErrnoException) => fail(new Error(`cannot listen on the sandbox egress socket ${socket}: ${err.message}`)));
    listener.listen(socket, () => ok());
  });
  await chmod(socket, 0o666);
  return {
    async close() {
      await new Promise<void>((ok) => listener.close(() => ok()));
      await rm(socket, { force: true });
    },
  };
}
