// The unauthenticated probes: /livez, /ready (from memory) and /health (for people).
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/otel';
import '../app-state.js';
import { isSlotUsable } from '../adapters/slot-state.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import { federationSchema } from './meta-route.js';
import { sandboxStatusSchema } from '../sandbox/sandbox-report.js';

// Probes are polled every few seconds: keep them out of info logs and traces. They share one
// warn-level child logger, made once: a per-request child with its own level costs more than
// the probe itself. They are public, so no request gate runs for them (http/request-gate.ts):
// each handler echoes the request id itself, and shutdown shows in readiness.
function probeRouteOptions(app: FastifyInstance) {
  const quieter = ['trace', 'debug', 'info'].includes(app.log.level) ? 'warn' : app.log.level;
  const probeLogger = app.log.child({ probe: true }, { level: quieter });
  return { config: { public: true, otel: false }, childLoggerFactory: () => probeLogger } as const;
}

const readySchema = {
  summary:
    'Readiness: 200 when the seal exists, the mounts are writable, every critical adapter slot is healthy and (while agent events are published) a relay is reachable; 503 from the moment the API starts shutting down',
  tags: ['probes'],
  security: [],
  response: {
    200: {
      type: 'object',
      properties: {
        ready: { const: true },
        since: { type: 'string' },
        requirements: { type: 'array', items: { type: 'string' } },
        degraded: { type: 'array', items: { type: 'string' } },
      },
    },
    503: {
      type: 'object',
      properties: {
        ready: { const: false },
        since: { type: 'string' },
        reason: { type: 'string' },
        missing: { type: 'array', items: { type: 'string' } },
        degraded: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

const slotSchema = {
  type: 'object',
  properties: {
    impl: { type: 'string' },
    adapter: { type: 'string' },
    critical: { type: 'boolean' },
    state: { type: 'string' },
    reason: { type: 'string' },
    since: { type: 'string' },
  },
};

const healthSchema = {
  summary: 'Aggregate health for people: slots, mounts, seal, supervised programmes, federation (mesh registration or members), relays, uptime',
  tags: ['probes'],
  security: [],
  response: {
    200: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'] },
        ready: { type: 'boolean' },
        uptimeSec: { type: 'number' },
        startedAt: { type: 'string' },
        slots: { type: 'object', additionalProperties: slotSchema },
        mounts: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, path: { type: 'string' }, writable: { type: 'boolean' }, error: { type: 'string' } },
          },
        },
        seal: {
          type: 'object',
          properties: {
            path: { type: 'string' },
            present: { type: 'boolean' },
            failure: {
              type: 'string',
              description: 'why the seal is not coming: stage B failed or the seal timed out (as recorded in the bootstrap failure marker)',
            },
          },
        },
        programs: { type: 'object', additionalProperties: true },
        federation: federationSchema,
        sandbox: sandboxStatusSchema,
        relays: {
          type: 'object',
          description: 'present while agent events are published: the relays and which are connected',
          properties: { configured: { type: 'array', items: { type: 'string' } }, reachable: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
  },
};

/** Register /livez, /ready and /health. */
export function registerProbeRoutes(app: FastifyInstance): void {
  const probeRoute = probeRouteOptions(app);
  app.get(
    '/livez',
    {
      ...probeRoute,
      schema: {
        summary: 'Liveness: the process answers (no external checks), also while it shuts down',
        tags: ['probes'],
        security: [],
        response: { 200: { type: 'object', properties: { live: { const: true } } } },
      },
    },
    async (request, reply) => {
      void reply.header(REQUEST_ID_HEADER, request.id).header('cache-control', 'no-store');
      return { live: true };
    },
  );

  app.get('/ready', { ...probeRoute, schema: readySchema }, (request, reply) => {
    const { status, body } = app.agentbox.probes.readiness.response;
    void reply
      .code(status)
      .header(REQUEST_ID_HEADER, request.id)
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(body);
  });

  app.get('/health', { ...probeRoute, schema: healthSchema }, async (request, reply) => {
    const body = await healthBody(app);
    void reply.header(REQUEST_ID_HEADER, request.id).header('cache-control', 'no-store');
    return body;
  });
}

/** The body of GET /health (also a part of the dashboard's overview). */
export async function healthBody(app: FastifyInstance) {
  const { resolver, probes, clock, startedAt, paths } = app.agentbox;
  const statuses = resolver.statuses();
  const sandbox = app.agentbox.sandbox.status();
  // A box whose agents cannot be confined refuses every spawn: degraded, though still ready for the rest.
  const degraded = statuses.some((s) => !isSlotUsable(s.state)) || sandbox.mode === 'unavailable';
  const programs = await app.agentbox.programs();
  const relays = app.agentbox.agentEvents.relayStatus();
  return {
    status: probes.readiness.ready && !degraded ? 'ok' : 'degraded',
    ready: probes.readiness.ready,
    uptimeSec: Math.max(0, (clock().getTime() - startedAt.getTime()) / 1000),
    startedAt: startedAt.toISOString(),
    slots: Object.fromEntries(
      statuses.map(({ slot, ...rest }) => [
        slot,
        { impl: rest.impl, adapter: rest.adapter, critical: rest.critical, state: rest.state, reason: rest.reason, since: rest.since },
      ]),
    ),
    mounts: probes.mounts.states,
    seal: { path: paths.sealFile, present: probes.seal.present, ...(!probes.seal.present && probes.seal.failure ? { failure: probes.seal.failure } : {}) },
    ...(programs ? { programs } : {}),
    federation: await app.agentbox.federation.currentStatus(),
    sandbox,
    ...(relays ? { relays } : {}),
  };
}
