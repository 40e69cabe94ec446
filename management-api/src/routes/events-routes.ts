// /v1/events: append an event, query by time and kind, stream live events (SSE), and the log's
// signed checkpoint and Merkle proofs.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { LogCheckpoint } from '../adapters/events/events-adapter.js';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import { EVENTS_PAGER } from '../adapters/events/log-reader.js';
import { agentScopes } from '../auth/agent-scopes.js';
import { errorBodySchema, errorResponses } from '../errors.js';
import { endStreamsOnClose, streamEvents, type StreamQuery } from './events-stream.js';

/** Limits of mutating routes. */
export interface MutationLimits {
  /** Requests per window per client address. */
  max: number;
  timeWindowMs: number;
  /** Largest accepted body in bytes. */
  bodyLimit: number;
}

const kindPattern = '^[a-z][a-z0-9_-]*(\\.[a-z0-9_-]+)*$';

const newEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { type: 'string', pattern: kindPattern, maxLength: 128, description: 'Dotted event kind, e.g. agent.note' },
    source: { type: 'string', minLength: 1, maxLength: 128, description: 'Who emits the event (default api)' },
    data: { type: 'object', description: 'Free-form JSON payload' },
  },
} as const;

const storedEventSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    seq: { type: 'integer' },
    time: { type: 'string' },
    kind: { type: 'string' },
    source: { type: 'string' },
    data: { type: 'object', additionalProperties: true },
  },
};

const kindFilter = {
  type: 'array',
  maxItems: 32,
  items: { type: 'string', pattern: kindPattern, maxLength: 128 },
  description: 'Only these kinds (repeat the parameter for several)',
} as const;
const timeBound = { type: 'string', minLength: 1, maxLength: 64, description: 'ISO-8601 time, inclusive' } as const;
const errors = errorResponses(400, 401, 403, 429, 503, 504);

interface QueryString {
  kind?: string[];
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

/** A checkpoint's answer: the signed note as text, or why there is none. */
const noteResponse = { 200: { description: 'text/plain; the signed note', type: 'string' }, 404: errorBodySchema, ...errors } as const;

/** Answer a checkpoint as its signed note, text/plain. */
async function signedNote(reply: FastifyReply, checkpoint: Promise<LogCheckpoint>): Promise<string> {
  const { note } = await checkpoint;
  void reply.type('text/plain; charset=utf-8');
  return note;
}

/** Register the event routes (authenticated by the app's bearer hook; the append is rate limited). */
export function registerEventRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const events = () => app.agentbox.resolver.slot('events');
  endStreamsOnClose(app);

  app.post<{ Body: { kind: string; source?: string; data?: Record<string, unknown> } }>(
    '/v1/events',
    {
      bodyLimit: limits.bodyLimit,
      // Agents append as themselves (source agent:<id>); reading the log is the operator's.
      config: { agent: agentScopes.eventAppend, rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
      schema: {
        summary: 'Append one event to the event sink; 201 once it is durable',
        tags: ['events'],
        body: newEventSchema,
        response: { 201: { type: 'object', properties: { event: storedEventSchema } }, 413: errorBodySchema, ...errors },
      },
    },
    async (request, reply) => {
      const { kind, source, data } = request.body;
      const [event] = await events().append([{ kind, source: source ?? 'api', data: data ?? {} }]);
      void reply.code(201);
      return { event };
    },
  );

  app.get<{ Querystring: QueryString }>(
    '/v1/events',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Query events, oldest first, by kind and inclusive time range; page with nextCursor',
        tags: ['events'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            kind: kindFilter,
            since: timeBound,
            until: timeBound,
            limit: { type: 'integer', minimum: 1, maximum: EVENTS_PAGER.maxLimit },
            cursor: { type: 'string', maxLength: 256 },
          },
        },
        response: { 200: { type: 'object', properties: { items: { type: 'array', items: storedEventSchema }, nextCursor: { type: 'string' } } }, ...errors },
      },
    },
    async (request) => {
      const { kind, ...rest } = request.query;
      return events().query({ ...rest, ...(kind ? { kinds: kind } : {}) });
    },
  );

  app.get<{ Querystring: StreamQuery }>(
    '/v1/events/stream',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Live events as Server-Sent Events; resume with Last-Event-ID or start from a time with since',
        tags: ['events'],
        querystring: { type: 'object', additionalProperties: false, properties: { kind: kindFilter, since: timeBound } },
        response: { 200: { description: 'text/event-stream: one `id:`/`data:` record per event', type: 'string' }, ...errors },
      },
    },
    (request, reply) => streamEvents(app, request, reply),
  );

  app.get(
    '/v1/events/checkpoint',
    {
      config: { agent: 'deny' },
      schema: {
        summary: "The event log's latest signed checkpoint: a C2SP tlog-checkpoint signed note (origin, size, base64 RFC 6962 root), text/plain",
        tags: ['events'],
        response: noteResponse,
      },
    },
    (_request, reply) => signedNote(reply, events().checkpoint()),
  );

  app.post(
    '/v1/events/checkpoint',
    {
      // Signing writes to the log's tree and history: the operator's, and rate limited as appends are.
      config: { agent: 'deny', rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
      schema: {
        summary:
          'Sign a checkpoint of the event log as it is now (none when the latest already covers every entry) and answer the latest signed note, text/plain; agentbox backup asks for one so the backup holds every event so far',
        tags: ['events'],
        response: noteResponse,
      },
    },
    (_request, reply) => signedNote(reply, events().signCheckpoint()),
  );

  app.get<{ Querystring: { index: number; size?: number } }>(
    '/v1/events/proof/inclusion',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'RFC 6962 inclusion proof of entry index (seq − 1) in the tree of size entries (default: the latest checkpoint)',
        tags: ['events'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['index'],
          properties: { index: { type: 'integer', minimum: 0 }, size: { type: 'integer', minimum: 1 } },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              index: { type: 'integer' },
              size: { type: 'integer' },
              leafHash: { type: 'string', description: 'base64 SHA-256(0x00 || the stored line)' },
              path: { type: 'array', items: { type: 'string' }, description: 'base64 hashes, deepest sibling first' },
            },
          },
          404: errorBodySchema,
          ...errors,
        },
      },
    },
    async (request) => events().inclusionProof(request.query.index, request.query.size),
  );

  app.get<{ Querystring: { from: number; to?: number } }>(
    '/v1/events/proof/consistency',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'RFC 6962 consistency proof between the trees of from and to entries (default to: the latest checkpoint)',
        tags: ['events'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['from'],
          properties: { from: { type: 'integer', minimum: 1 }, to: { type: 'integer', minimum: 1 } },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              from: { type: 'integer' },
              to: { type: 'integer' },
              path: { type: 'array', items: { type: 'string' }, description: 'base64 hashes' },
            },
          },
          404: errorBodySchema,
          ...errors,
        },
      },
    },
    async (request) => events().consistencyProof(request.query.from, request.query.to),
  );
}
