// POST /v1/events: append one event to the events slot (authenticated, validated, rate limited).
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import { errorBodySchema } from '../errors.js';

/** Limits of mutating routes. */
export interface MutationLimits {
  /** Requests per window per client address. */
  max: number;
  timeWindowMs: number;
  /** Largest accepted body in bytes. */
  bodyLimit: number;
}

const newEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { type: 'string', pattern: '^[a-z][a-z0-9_-]*(\\.[a-z0-9_-]+)*$', maxLength: 128, description: 'Dotted event kind, e.g. agent.note' },
    source: { type: 'string', minLength: 1, maxLength: 128, description: 'Who emits the event (default api)' },
    data: { type: 'object', description: 'Free-form JSON payload' },
  },
} as const;

const storedEventSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, seq: { type: 'integer' }, time: { type: 'string' }, kind: { type: 'string' }, source: { type: 'string' }, data: { type: 'object', additionalProperties: true } },
};

/** Register the event routes. */
export function registerEventRoutes(app: FastifyInstance, limits: MutationLimits): void {
  app.post<{ Body: { kind: string; source?: string; data?: Record<string, unknown> } }>(
    '/v1/events',
    {
      bodyLimit: limits.bodyLimit,
      config: { rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
      schema: {
        summary: 'Append one event to the event sink',
        tags: ['events'],
        body: newEventSchema,
        response: { 201: { type: 'object', properties: { event: storedEventSchema } }, 400: errorBodySchema, 401: errorBodySchema, 413: errorBodySchema, 429: errorBodySchema, 503: errorBodySchema },
      },
    },
    async (request, reply) => {
      const { kind, source, data } = request.body;
      const [event] = await app.agentbox.resolver.slot('events').append([{ kind, source: source ?? 'api', data: data ?? {} }]);
      void reply.code(201);
      return { event };
    },
  );
}
