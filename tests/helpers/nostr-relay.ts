// A real Nostr relay for tests: @nostr-relay/core with its validator and SQLite event store,
// served over ws on 127.0.0.1; it can refuse events and be stopped and started on the same port.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import { serveNostr } from '../../management-api/src/mesh/relay-server.js';
import { NostrRelay } from '@nostr-relay/core';
import { Validator } from '@nostr-relay/validator';
import { EventRepositorySqlite } from '@nostr-relay/event-repository-sqlite';
import type { Event, Filter } from '@nostr-relay/common';

/** A running relay. */
export interface TestRelay {
  url: string;
  port: number;
  /** Events stored, by filter. */
  events(filter: Filter): Promise<Event[]>;
  /** Clients connected now. */
  connections(): number;
  /** Clients that ever connected. */
  connectionsEver(): number;
  /** Refuse (OK false with this message) every event while set. */
  refuse(message: string | undefined): void;
  /** Stop serving (stored events are kept for a later start on the same port). */
  stop(): Promise<void>;
  /** Serve again on the same port. */
  start(): Promise<void>;
  /** Stop and remove the store. */
  close(): Promise<void>;
}

/** Start a relay on `port` (0: any free port). */
export async function startTestRelay(port = 0): Promise<TestRelay> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-relay-'));
  const repository = new EventRepositorySqlite(path.join(dir, 'events.db'));
  await repository.init();
  const relay = new NostrRelay(repository);
  let refusal: string | undefined;
  relay.register({ beforeHandleEvent: () => (refusal ? { canHandle: false, message: refusal } : { canHandle: true }) });
  const validator = new Validator();
  let wss: WebSocketServer | undefined;
  let boundPort = port;
  let ever = 0;

  const serve = async (): Promise<void> => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: boundPort });
    serveNostr(server, relay, validator, () => {
      ever += 1;
    });
    await once(server, 'listening');
    boundPort = (server.address() as { port: number }).port;
    wss = server;
  };
  const stop = async (): Promise<void> => {
    const server = wss;
    wss = undefined;
    if (!server) return;
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  await serve();
  return {
    url: `ws://127.0.0.1:${boundPort}`,
    port: boundPort,
    events: (filter) => repository.find(filter),
    connections: () => wss?.clients.size ?? 0,
    connectionsEver: () => ever,
    refuse: (message) => void (refusal = message),
    stop,
    start: serve,
    async close() {
      await stop();
      await relay.destroy();
      await repository.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
