// /v1/pods/*: read, write and delete pod resources with ETags and preconditions; list containers.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import { PODS_PAGER } from '../adapters/pods/pod-page.js';
import type { PodConditions } from '../adapters/pods/pods-adapter.js';
import { ApiError, errorResponses } from '../errors.js';
import type { MutationLimits } from './events-routes.js';

const errors = errorResponses(400, 401, 404, 409, 412, 413, 429, 503, 504);
const params = {
  type: 'object',
  required: ['*'],
  properties: { '*': { type: 'string', maxLength: 1024, description: 'The pod path after /v1/pods/; a trailing / names a container' } },
} as const;
const conditionHeaders = {
  type: 'object',
  properties: {
    'if-match': { type: 'string', maxLength: 1024, description: 'Write or delete only if the current ETag is one of these (or * for any existing)' },
    'if-none-match': { type: 'string', maxLength: 1024, description: 'PUT: * creates only if absent. GET: answer 304 when the ETag matches' },
  },
} as const;

interface PodRoute {
  Params: { '*': string };
  Headers: { 'if-match'?: string; 'if-none-match'?: string };
}

/**
 * Register the pod routes (authenticated by the app's bearer hook; writes rate limited). They live
 * in a plugin of their own: PUT takes any content type as raw bytes, which must not change how the
 * other routes parse JSON. A GET of a container path (`…/`) answers a JSON listing.
 */
export function registerPodRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const pods = () => app.agentbox.resolver.slot('pods');
  // Pods are the operator's storage: agents keep their files in their own working directory.
  const mutation = { bodyLimit: limits.bodyLimit, config: { agent: 'deny' as const, rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } } };

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    scope.get<PodRoute & { Querystring: { limit?: number; cursor?: string } }>(
      '/v1/pods/*',
      {
        config: { agent: 'deny' },
        schema: {
          summary:
            'A resource (its bytes, Content-Type, ETag, Last-Modified; 304 on a matching If-None-Match) or, for a path ending in /, a page of the container members',
          tags: ['pods'],
          params,
          headers: conditionHeaders,
          querystring: {
            type: 'object',
            additionalProperties: false,
            properties: { limit: { type: 'integer', minimum: 1, maximum: PODS_PAGER.maxLimit }, cursor: { type: 'string', maxLength: 2048 } },
          },
          response: {
            200: { description: 'The resource bytes, or a JSON listing {items, nextCursor} for a container' },
            304: { description: 'Not modified', type: 'null' },
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const podPath = toPodPath(request.params['*']);
        if (podPath.endsWith('/')) {
          const { limit, cursor } = request.query;
          return reply
            .type('application/json; charset=utf-8')
            .serializer(JSON.stringify)
            .send(await pods().list(podPath, { ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) }));
        }
        const resource = await pods().get(podPath);
        setValidators(reply, resource.etag, resource.modifiedAt);
        if (etagMatches(request.headers['if-none-match'], resource.etag)) return reply.code(304).send();
        return reply.type(resource.contentType).send(Buffer.from(resource.body.buffer, resource.body.byteOffset, resource.body.byteLength));
      },
    );

    scope.put<PodRoute & { Body: Buffer | undefined }>(
      '/v1/pods/*',
      {
        ...mutation,
        schema: {
          summary:
            'Create or replace a resource with the request body and its Content-Type (201 created, 200 replaced); an empty PUT to a path ending in / creates a container',
          tags: ['pods'],
          params,
          headers: conditionHeaders,
          response: {
            200: { type: 'object', properties: { path: { type: 'string' }, etag: { type: 'string' }, created: { type: 'boolean' } } },
            201: { type: 'object', properties: { path: { type: 'string' }, etag: { type: 'string' }, created: { type: 'boolean' } } },
            ...errors,
          },
        },
      },
      async (request, reply) => {
        const podPath = toPodPath(request.params['*']);
        const body = request.body ?? Buffer.alloc(0);
        const contentType = request.headers['content-type'] ?? (podPath.endsWith('/') ? 'text/turtle' : 'application/octet-stream');
        const result = await pods().put(podPath, new Uint8Array(body.buffer, body.byteOffset, body.byteLength), {
          contentType,
          ...conditions(request.headers),
        });
        void reply.code(result.created ? 201 : 200).header('etag', result.etag);
        if (result.created) void reply.header('location', `/v1/pods${podPath}`);
        return { path: podPath, ...result };
      },
    );

    scope.delete<PodRoute>(
      '/v1/pods/*',
      {
        config: mutation.config,
        schema: {
          summary: 'Delete a resource, or an empty container; If-Match makes it conditional',
          tags: ['pods'],
          params,
          headers: conditionHeaders,
          response: { 204: { description: 'Deleted', type: 'null' }, ...errors },
        },
      },
      async (request, reply) => {
        await pods().delete(toPodPath(request.params['*']), conditions(request.headers));
        return reply.code(204).send();
      },
    );
  });
}

/** The pod path of the wildcard (already percent-decoded by the router); the adapter checks it. */
function toPodPath(wildcard: string): string {
  return `/${wildcard}`;
}

function conditions(headers: PodRoute['Headers']): PodConditions {
  const out: PodConditions = {};
  if (headers['if-match'] !== undefined) out.ifMatch = headers['if-match'];
  const none = headers['if-none-match'];
  if (none !== undefined) {
    if (none.trim() !== '*') throw new ApiError('ABX_ERR_VALIDATION', 'If-None-Match on a write supports only "*" (create only if absent)');
    out.ifNoneMatch = '*';
  }
  return out;
}

function setValidators(reply: FastifyReply, etag: string, modifiedAt: string): void {
  if (etag) void reply.header('etag', etag);
  const time = new Date(modifiedAt);
  if (!Number.isNaN(time.getTime()) && time.getTime() > 0) void reply.header('last-modified', time.toUTCString());
}

// If-None-Match on a GET uses the weak comparison (RFC 9110 §13.1.2): W/ prefixes are ignored.
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header || !etag) return false;
  if (header.trim() === '*') return true;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => strip(t) === strip(etag));
}
