// A real HTTP event sink on 127.0.0.1 speaking the external-http protocol: POST {events} to deliver, GET to query.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import type { AdapterModule } from '../../management-api/src/adapters/adapter.js';
import type { EventsAdapter, StoredEvent } from '../../management-api/src/adapters/events/events-adapter.js';
import { HttpEvents } from '../../management-api/src/adapters/events/external-http.js';
import { MESH_CLIENT, onlySlot } from './pods-harness.js';

/** Manifest text for events = external-http against `url`, the token in the variable SINK_TOKEN. */
export function sinkManifest(url: string): string {
  return onlySlot('events', 'external-http', `${MESH_CLIENT}[integrations.events]\nurl = "${url}"\ntoken_env = "SINK_TOKEN"\n`);
}

/** The real implementation, built from the manifest, with quick retries and optionally small spool files or batches. */
export function quickRetries(extra: { spoolFileBytes?: number; batchEvents?: number } = {}): AdapterModule<EventsAdapter, 'events'> {
  return {
    ADAPTER: 'events/external-http',
    CONTRACT_VERSION: '1.0.0',
    create: (ctx) =>
      new HttpEvents({
        url: ctx.settings.url,
        token: ctx.settings,
        env: ctx.env,
        spoolDir: path.join(ctx.paths.stateDir, 'events-spool'),
        retryInitialMs: 20,
        retryMaxMs: 100,
        ...extra,
      }),
  };
}

/** A running sink and what it has seen. */
export interface EventSink {
  url: string;
  port: number;
  /** Events accepted, de-duplicated by id, in arrival order. */
  received: StoredEvent[];
  /** The seqs of every POST, accepted or not, in arrival order (duplicates included). */
  deliveries: number[][];
  /** Answer the next `times` POSTs with `status` instead of accepting them. */
  failNext(status: number, times: number): void;
  /** Stop listening (connections dropped): the sink is down. */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  start(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req
      .setEncoding('utf8')
      .on('data', (d: string) => (text += d))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/** Start a sink on `port` (0: any) that requires `Authorization: Bearer <token>` when a token is given. */
export async function startSink(options: { token?: string; port?: number } = {}): Promise<EventSink> {
  const received: StoredEvent[] = [];
  const seen = new Set<string>();
  const deliveries: number[][] = [];
  let failing = { status: 0, times: 0 };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) return json(res, 401, { error: 'unauthorized' });
    const url = new URL(req.url ?? '/', 'http://sink');
    if (req.method === 'POST') {
      const events = (JSON.parse(await body(req)) as { events: StoredEvent[] }).events;
      deliveries.push(events.map((e) => e.seq));
      if (failing.times > 0) {
        failing.times -= 1;
        return json(res, failing.status, { error: 'induced failure' });
      }
      for (const e of events) if (!seen.has(e.id)) seen.add(e.id) && received.push(e);
      return json(res, 200, { accepted: events.length });
    }
    const kinds = url.searchParams.getAll('kind');
    const since = url.searchParams.get('since');
    const until = url.searchParams.get('until');
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const cursor = url.searchParams.get('cursor');
    const start = cursor === null ? 0 : Number(/^i(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString())?.[1] ?? NaN);
    if (Number.isNaN(start) || !(limit >= 1)) return json(res, 400, { error: 'ABX_ERR_VALIDATION', message: 'bad cursor or limit' });
    const items: StoredEvent[] = [];
    let next: string | undefined;
    for (let i = start; i < received.length; i++) {
      const e = received[i]!;
      if ((kinds.length && !kinds.includes(e.kind)) || (since && e.time < since) || (until && e.time > until)) continue;
      if (items.length === limit) {
        next = Buffer.from(`i${i}`).toString('base64url');
        break;
      }
      items.push(e);
    }
    return json(res, 200, next ? { items, nextCursor: next } : { items });
  };

  let server: Server | undefined;
  let port = options.port ?? 0;
  const sink: EventSink = {
    url: '',
    port: 0,
    received,
    deliveries,
    failNext: (status, times) => (failing = { status, times }),
    async start() {
      server = createServer((req, res) => void handle(req, res).catch((err: Error) => json(res, 500, { error: err.message })));
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
      sink.port = port;
      sink.url = `http://127.0.0.1:${port}/sink`;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    },
  };
  await sink.start();
  return sink;
}
