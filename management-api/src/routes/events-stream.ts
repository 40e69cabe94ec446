// GET /v1/events/stream: live events as Server-Sent Events, with replay from Last-Event-ID or `since`.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import '../app-state.js';
import type { StoredEvent } from '../adapters/events/events-adapter.js';
import { ApiError } from '../errors.js';

/** Query parameters of the stream. */
export interface StreamQuery {
  kind?: string[];
  since?: string;
}

/** A comment line this often keeps proxies and clients from timing the stream out. */
export const HEARTBEAT_MS = 15_000;

// Live streams per app, so closing the app ends them instead of waiting on open connections.
const streams = new WeakMap<FastifyInstance, Set<AbortController>>();

/**
 * End every open stream when the app closes (a preClose hook: before the server stops accepting,
 * so fastify's close does not wait on connections that would never end by themselves).
 */
export function endStreamsOnClose(app: FastifyInstance): void {
  const open = new Set<AbortController>();
  streams.set(app, open);
  app.addHook('preClose', async () => {
    for (const c of open) c.abort();
  });
}

/** The SSE `id:` of an event: seq and time, so a resuming client can be replayed from the log. */
export function eventId(e: StoredEvent): string {
  return `${e.seq}@${e.time}`;
}

function parseLastEventId(header: string | string[] | undefined): { seq: number; time: string } | undefined {
  if (header === undefined || Array.isArray(header) || header === '') return undefined;
  const m = /^(\d{1,15})@(.{1,64})$/.exec(header);
  if (!m || Number.isNaN(Date.parse(m[2]!))) throw new ApiError('ABX_ERR_VALIDATION', 'Last-Event-ID is not an id this stream sent (expected <seq>@<time>)');
  return { seq: Number(m[1]), time: m[2]! };
}

/**
 * Subscribe first (so nothing appended during the replay is missed), then replay stored events
 * from the resume point, then forward live ones — skipping any seq already sent. Errors before
 * the stream starts get the normal JSON error reply; after, an `event: error` record ends it.
 */
export async function streamEvents(app: FastifyInstance, request: FastifyRequest<{ Querystring: StreamQuery }>, reply: FastifyReply): Promise<void> {
  const slot = app.agentbox.resolver.slot('events');
  const kinds = request.query.kind;
  const resume = parseLastEventId(request.headers['last-event-id']);
  const since = resume?.time ?? request.query.since;
  const controller = new AbortController();
  // `since` goes into the live filter too (harmless: live events are newer), so a bad time is a 400 before the stream starts.
  const live = await slot.subscribe({ ...(kinds ? { kinds } : {}), ...(since !== undefined ? { since } : {}) }, controller.signal);

  reply.hijack();
  const res = reply.raw;
  // `Connection: close`: the socket ends with the stream rather than idling in keep-alive.
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'close',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  res.write('retry: 2000\n\n');
  const open = streams.get(app);
  open?.add(controller);
  res.on('close', () => controller.abort());
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();

  let lastSeq = resume?.seq ?? 0;
  const send = async (e: StoredEvent): Promise<void> => {
    if (e.seq <= lastSeq) return;
    lastSeq = e.seq;
    if (!res.write(`id: ${eventId(e)}\ndata: ${JSON.stringify(e)}\n\n`)) await drained(res, controller.signal);
  };
  try {
    if (since !== undefined) {
      let cursor: string | undefined;
      do {
        const page = await slot.query({ ...(kinds ? { kinds } : {}), since, limit: 1000, ...(cursor ? { cursor } : {}) });
        for (const e of page.items) await send(e);
        cursor = page.nextCursor;
      } while (cursor && !controller.signal.aborted);
    }
    for await (const e of live) await send(e);
  } catch (err) {
    if (!controller.signal.aborted) {
      const body =
        err instanceof ApiError
          ? { error: err.code, message: err.message }
          : {
              error: 'ABX_ERR_INTERNAL',
              message: (err as Error).name === 'SubscriberOverflowError' ? (err as Error).message : 'the stream failed; see the API log',
            };
      request.log.warn({ err, event: 'EventStreamFailed' }, 'the event stream ended with an error');
      res.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    controller.abort();
    open?.delete(controller);
    res.end();
  }
}

// Wait for the socket to take more, or for the client to go away (then 'drain' never comes).
async function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await once(res, 'drain', { signal }).catch(() => undefined);
}
