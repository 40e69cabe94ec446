// GET /v1/dashboard/stream: the dashboard's live topics as Server-Sent Events, one message per topic on connect and on each change.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import '../app-state.js';
import { errorBodySchema } from '../errors.js';
import type { DashboardHub, Subscriber } from './hub.js';
import { TOPICS, type Topic } from './snapshots.js';

/** A comment line this often keeps proxies and clients from timing the stream out. */
export const PING_MS = 15_000;
/** A client that lets this much pile up unread is cut off (it reconnects and starts from fresh snapshots). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

const topicList = `^(${TOPICS.join('|')})(,(${TOPICS.join('|')}))*$`;

const streamSchema = {
  summary:
    'The dashboard live stream (SSE): for each topic (overview, agents, beads, mesh, approvals, inputs; default all) an `event: <topic>` message with its JSON on connect and whenever it changes',
  tags: ['dashboard'],
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: { topics: { type: 'string', pattern: topicList, maxLength: 100, description: 'Comma-separated topics' } },
  },
  response: {
    200: { description: 'text/event-stream: `event: <topic>` / `data: <JSON>` records and `: ping` comments', type: 'string' },
    400: errorBodySchema,
    401: errorBodySchema,
    403: errorBodySchema,
  },
} as const;

/** Register the stream route (authenticated like any /v1 route; never an agent's). */
export function registerDashboardStream(app: FastifyInstance, hub: DashboardHub): void {
  app.get<{ Querystring: { topics?: string } }>('/v1/dashboard/stream', { config: { agent: 'deny' }, schema: streamSchema }, async (request, reply) => {
    const topics = new Set<Topic>(request.query.topics ? (request.query.topics.split(',') as Topic[]) : TOPICS);
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
    const ping = setInterval(() => res.write(': ping\n\n'), PING_MS);
    ping.unref();
    const subscriber: Subscriber = {
      topics,
      write(topic, json) {
        if (res.writableLength > MAX_BUFFERED_BYTES) {
          request.log.warn({ event: 'DashboardStreamDropped', buffered: res.writableLength }, 'a dashboard stream read too slowly and was ended');
          res.destroy();
          return;
        }
        res.write(`event: ${topic}\ndata: ${json}\n\n`);
      },
      end: () => res.end(),
    };
    res.on('close', () => {
      clearInterval(ping);
      hub.remove(subscriber);
    });
    await hub.add(subscriber);
  });
}
