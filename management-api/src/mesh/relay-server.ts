// The embedded Nostr relay: @nostr-relay/core with its validator and SQLite event store, served
// over WebSocket on the manifest's bind and port, with the ingress guard in front of the store.
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { NostrRelay } from '@nostr-relay/core';
import { Validator } from '@nostr-relay/validator';
import { EventRepositorySqlite } from '@nostr-relay/event-repository-sqlite';
import { LogLevel, type Logger as RelayLogger } from '@nostr-relay/common';
import { listenError, type RelayConfig } from './relay-config.js';
import { ingressGuard, type IngressRules } from './relay-ingress.js';

/** A relay that listens. */
export interface RunningRelay {
  /** The port it listens on (the manifest's, or the one chosen when the config asks for 0). */
  port: number;
  /** Stop accepting, disconnect every client, close the store. */
  close(): Promise<void>;
}

/** Options of {@link startRelayServer}. */
export interface RelayServerOptions {
  config: RelayConfig;
  /** The box's identity (hex), accepted under `allowlist`. */
  boxPubkey: string;
  /** The SQLite file of stored events (its directory is created when missing). */
  databaseFile: string;
  logger: Logger;
}

/** The engine's own log lines, as JSON lines of the box's logger. */
function engineLogger(logger: Logger): RelayLogger {
  return {
    setLogLevel: () => undefined,
    debug: (message) => logger.debug({ event: 'RelayEngine' }, message),
    info: (message) => logger.info({ event: 'RelayEngine' }, message),
    warn: (message) => logger.warn({ event: 'RelayEngine' }, message),
    error: (message) => logger.error({ event: 'RelayEngine' }, message),
  };
}

/**
 * Speak NIP-01 on every connection of `server` with `relay`: each message checked by `validator`
 * first. `onConnection` sees each new client (tests count them).
 */
export function serveNostr(server: WebSocketServer, relay: NostrRelay, validator: Validator, onConnection?: () => void): void {
  server.on('connection', (ws: WebSocket) => {
    onConnection?.();
    relay.handleConnection(ws);
    ws.on('message', (data) => {
      // A message the validator refuses (malformed, oversized) is answered with a NOTICE, as NIP-01 allows.
      void validator
        .validateIncomingMessage(data)
        .then((message) => relay.handleMessage(ws, message))
        .catch((err: Error) => ws.send(JSON.stringify(['NOTICE', err.message])));
    });
    ws.on('close', () => relay.handleDisconnect(ws));
    ws.on('error', () => undefined);
  });
}

/**
 * Open the store and listen on `config.bind`:`config.port`. A port in use or an address that is
 * not the host's is thrown as a RelayConfigError naming the manifest key.
 */
export async function startRelayServer(options: RelayServerOptions): Promise<RunningRelay> {
  const { config, logger } = options;
  await mkdir(path.dirname(options.databaseFile), { recursive: true });
  const repository = new EventRepositorySqlite(options.databaseFile);
  await repository.init();
  const relay = new NostrRelay(repository, { logger: engineLogger(logger), logLevel: LogLevel.INFO });
  const rules: IngressRules = { policy: config.policy, allowedPubkeys: config.allowedPubkeys, allowedKinds: config.allowedKinds, boxPubkey: options.boxPubkey };
  relay.register(
    ingressGuard(rules, (event, message) => logger.info({ event: 'RelayEventRefused', id: event.id, kind: event.kind, pubkey: event.pubkey }, message)),
  );

  const server = new WebSocketServer({ host: config.bind, port: config.port });
  serveNostr(server, relay, new Validator());
  const closeStore = async (): Promise<void> => {
    await relay.destroy();
    await repository.destroy();
  };
  try {
    // once() rejects with the server's 'error' when listening fails.
    await once(server, 'listening');
  } catch (err) {
    await closeStore();
    throw listenError(err as NodeJS.ErrnoException, config);
  }
  server.on('error', (err) => logger.error({ event: 'RelayServerError', err }, err.message));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeStore();
    },
  };
}
