// /v1/memory/:namespace: store, search, retrieve, delete and list vector memories, dispatched to the memory slot.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import type { PageRequest } from '../adapters/adapter.js';
import type { MemoryQuery, MemoryRecord, NewMemory } from '../adapters/memory/memory-adapter.js';
import { MAX_K, MAX_METADATA_BYTES, MAX_TEXT_CHARS, MEMORY_PAGER } from '../adapters/memory/memory-input.js';
import { agentScopes } from '../auth/agent-scopes.js';
import { errorResponses } from '../errors.js';
import type { MutationLimits } from './events-routes.js';

// The adapters check the same patterns; here they turn bad input into 400s before any dispatch.
const namespace = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'Isolates callers: letters, digits, ".", "_", "-"' } as const;
const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' } as const;
// The dimension is the manifest's (integrations.memory.dimension); the adapter refuses a mismatch.
const vector = { type: 'array', minItems: 2, maxItems: 16_000, items: { type: 'number' }, description: 'integrations.memory.dimension numbers' } as const;
const metadata = { type: 'object', description: `Any JSON object, at most ${MAX_METADATA_BYTES} bytes` } as const;

const hitSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, score: { type: 'number' }, text: { type: 'string' }, metadata: { type: 'object', additionalProperties: true } },
} as const;
const summarySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    namespace: { type: 'string' },
    text: { type: 'string' },
    metadata: { type: 'object', additionalProperties: true },
    createdAt: { type: 'string' },
  },
} as const;
const recordSchema = { type: 'object', properties: { ...summarySchema.properties, vector: { type: 'array', items: { type: 'number' } } } } as const;
const errors = errorResponses(400, 401, 403, 404, 429, 503, 504);
const nsParams = { type: 'object', additionalProperties: false, required: ['namespace'], properties: { namespace } } as const;
const idParams = { type: 'object', additionalProperties: false, required: ['namespace', 'id'], properties: { namespace, id } } as const;

/**
 * Register the memory routes (authenticated by the app's bearer hook; mutations rate limited).
 * Every handler calls the resolver's dispatching operations, so a degraded or off slot answers
 * 503 with its code and every call is measured.
 */
export function registerMemoryRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const memory = () => app.agentbox.resolver.slot('memory');
  // An agent token reaches only its own namespaces, agent.<name> and agent.<name>.* (auth/agent-scopes.ts).
  const agent = agentScopes.memoryOwn;
  const mutation = { bodyLimit: limits.bodyLimit, config: { agent, rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } } };

  app.post<{ Params: { namespace: string }; Body: NewMemory & { id?: string } }>(
    '/v1/memory/:namespace',
    {
      ...mutation,
      schema: {
        summary: 'Store a memory (an existing id is replaced); without a vector the built-in text embedder computes one',
        tags: ['memory'],
        params: nsParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['text'],
          properties: { id, text: { type: 'string', maxLength: MAX_TEXT_CHARS }, metadata, vector },
        },
        response: { 201: { type: 'object', properties: { id: { type: 'string' } } }, ...errors },
      },
    },
    async (request, reply) => {
      const stored = await memory().store(request.params.namespace, request.body);
      void reply.code(201);
      return stored;
    },
  );

  app.post<{ Params: { namespace: string }; Body: MemoryQuery }>(
    '/v1/memory/:namespace/search',
    {
      ...mutation,
      schema: {
        summary: 'Nearest memories to a text or a vector, best first (score = cosine similarity)',
        tags: ['memory'],
        params: nsParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['k'],
          properties: { text: { type: 'string', maxLength: MAX_TEXT_CHARS }, vector, k: { type: 'integer', minimum: 1, maximum: MAX_K } },
        },
        response: { 200: { type: 'object', properties: { hits: { type: 'array', items: hitSchema } } }, ...errors },
      },
    },
    async (request) => ({ hits: await memory().search(request.params.namespace, request.body) }),
  );

  app.get<{ Params: { namespace: string; id: string } }>(
    '/v1/memory/:namespace/:id',
    {
      config: { agent },
      schema: {
        summary: 'One memory with its vector',
        tags: ['memory'],
        params: idParams,
        response: { 200: { type: 'object', properties: { memory: recordSchema } }, ...errors },
      },
    },
    async (request) => {
      const record: MemoryRecord = await memory().retrieve(request.params.namespace, request.params.id);
      return { memory: { ...record, vector: Array.from(record.vector) } };
    },
  );

  app.delete<{ Params: { namespace: string; id: string } }>(
    '/v1/memory/:namespace/:id',
    {
      ...mutation,
      schema: {
        summary: 'Delete a memory; deleted is false when there was none',
        tags: ['memory'],
        params: idParams,
        response: { 200: { type: 'object', properties: { deleted: { type: 'boolean' } } }, ...errors },
      },
    },
    async (request) => ({ deleted: await memory().delete(request.params.namespace, request.params.id) }),
  );

  app.get<{ Params: { namespace: string }; Querystring: PageRequest }>(
    '/v1/memory/:namespace',
    {
      config: { agent },
      schema: {
        summary: 'List memories of a namespace in insertion order (without vectors)',
        tags: ['memory'],
        params: nsParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { limit: { type: 'integer', minimum: 1, maximum: MEMORY_PAGER.maxLimit }, cursor: { type: 'string', maxLength: 256 } },
        },
        response: { 200: { type: 'object', properties: { items: { type: 'array', items: summarySchema }, nextCursor: { type: 'string' } } }, ...errors },
      },
    },
    async (request) => memory().list(request.params.namespace, request.query),
  );
}
