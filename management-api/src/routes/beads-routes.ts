// /v1/beads: create, read, list, claim, close and the ready queue, dispatched to the beads slot.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import { BEAD_LIMITS, OUTCOMES } from '../adapters/beads/bead-input.js';
import { BEADS_PAGER } from '../adapters/beads/bead-rows.js';
import type { BeadOutcome, BeadQuery, BeadStatus, NewBead } from '../adapters/beads/beads-adapter.js';
import type { PageRequest } from '../adapters/adapter.js';
import { agentScopes } from '../auth/agent-scopes.js';
import { callerOf } from '../auth/caller.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { errorResponses } from '../errors.js';
import type { AgentPolicy } from '../auth/agent-access.js';
import type { MutationLimits } from './events-routes.js';

const STATUSES: readonly BeadStatus[] = ['open', 'claimed', 'closed'];
const id = { type: 'string', minLength: 1, maxLength: BEAD_LIMITS.id } as const;

const beadSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: ['epic', 'task'] },
    title: { type: 'string' },
    body: { type: 'string' },
    parentId: { type: 'string' },
    dependsOn: { type: 'array', items: { type: 'string' } },
    status: { type: 'string', enum: STATUSES },
    claimedBy: { type: 'string' },
    claimedAt: { type: 'string' },
    closedAt: { type: 'string' },
    outcome: { type: 'string', enum: OUTCOMES },
    outcomeNote: { type: 'string' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

const pageSchema = { type: 'object', properties: { items: { type: 'array', items: beadSchema }, nextCursor: { type: 'string' } } } as const;
const beadReply = { type: 'object', properties: { bead: beadSchema } } as const;
const errors = errorResponses(400, 401, 403, 404, 409, 429, 503, 504);
const paging = { limit: { type: 'integer', minimum: 1, maximum: BEADS_PAGER.maxLimit }, cursor: { type: 'string', maxLength: 256 } } as const;
const idParams = { type: 'object', additionalProperties: false, required: ['id'], properties: { id } } as const;

const newBeadBody = {
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: {
    kind: { type: 'string', enum: ['epic', 'task'], description: 'An epic groups tasks (default task)' },
    title: { type: 'string', minLength: 1, maxLength: BEAD_LIMITS.title },
    body: { type: 'string', maxLength: BEAD_LIMITS.body },
    parentId: { ...id, description: 'The epic this bead belongs to' },
    dependsOn: { type: 'array', maxItems: BEAD_LIMITS.dependsOn, items: id, description: 'Beads that must close with success first' },
  },
} as const;

/**
 * Register the bead routes (authenticated by the app's bearer hook; mutations rate limited).
 * Every handler calls the resolver's dispatching operations, so a degraded or off slot answers
 * 503 with its code and every call is measured.
 */
export function registerBeadRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const beads = () => app.agentbox.resolver.slot('beads');
  const rateLimit = { max: limits.max, timeWindow: limits.timeWindowMs };
  // An agent token reaches only its own beads (auth/agent-scopes.ts).
  const mutation = (agent: AgentPolicy) => ({ bodyLimit: limits.bodyLimit, config: { agent, rateLimit } });

  app.post<{ Body: NewBead }>(
    '/v1/beads',
    {
      ...mutation(agentScopes.beadCreate),
      schema: { summary: 'Create a bead (an epic or a task)', tags: ['beads'], body: newBeadBody, response: { 201: beadReply, ...errors } },
    },
    async (request, reply) => {
      app.agentbox.audit.admit('creating a bead');
      const bead = await beads().create(request.body);
      await app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.beadOpen, 'beads', {
        bead: bead.id,
        kind: bead.kind,
        title: bead.title,
        ...(bead.parentId ? { parentId: bead.parentId } : {}),
        dependsOn: bead.dependsOn,
      });
      app.agentbox.agentEvents.beadChanged(bead);
      void reply.code(201);
      return { bead };
    },
  );

  app.get<{ Querystring: BeadQuery }>(
    '/v1/beads',
    {
      config: { agent: agentScopes.beadList },
      schema: {
        summary: 'List beads in creation order, optionally by status and epic',
        tags: ['beads'],
        querystring: { type: 'object', additionalProperties: false, properties: { status: { type: 'string', enum: STATUSES }, parentId: id, ...paging } },
        response: { 200: pageSchema, ...errors },
      },
    },
    async (request) => beads().list(request.query),
  );

  app.get<{ Querystring: PageRequest }>(
    '/v1/beads/ready',
    {
      config: { agent: agentScopes.beadList },
      schema: {
        summary: 'The ready queue: open beads whose dependencies all closed with success, oldest first',
        tags: ['beads'],
        querystring: { type: 'object', additionalProperties: false, properties: paging },
        response: { 200: pageSchema, ...errors },
      },
    },
    async (request) => beads().readyQueue(request.query),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/beads/:id',
    { config: { agent: agentScopes.beadOwn }, schema: { summary: 'One bead', tags: ['beads'], params: idParams, response: { 200: beadReply, ...errors } } },
    async (request) => ({ bead: await beads().get(request.params.id) }),
  );

  app.post<{ Params: { id: string }; Body: { claimant: string } }>(
    '/v1/beads/:id/claim',
    {
      ...mutation(agentScopes.beadClaim),
      schema: {
        summary: 'Claim an open, ready bead: exactly one of concurrent claimants wins (409 for the others); the winner may repeat the claim',
        tags: ['beads'],
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['claimant'],
          properties: { claimant: { type: 'string', minLength: 1, maxLength: BEAD_LIMITS.claimant } },
        },
        response: { 200: { type: 'object', properties: { bead: beadSchema, claimed: { type: 'boolean' } } }, ...errors },
      },
    },
    async (request) => {
      app.agentbox.audit.admit('claiming a bead');
      const result = await beads().claim(request.params.id, request.body.claimant);
      await app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.beadClaimed, 'beads', { bead: result.bead.id, claimant: request.body.claimant });
      app.agentbox.agentEvents.beadChanged(result.bead);
      return result;
    },
  );

  app.post<{ Params: { id: string }; Body: { outcome: BeadOutcome; note?: string } }>(
    '/v1/beads/:id/close',
    {
      ...mutation(agentScopes.beadOwn),
      schema: {
        summary: 'Close a bead with an outcome (success, failure, cancelled); repeating the same close is harmless',
        tags: ['beads'],
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['outcome'],
          properties: { outcome: { type: 'string', enum: OUTCOMES }, note: { type: 'string', maxLength: BEAD_LIMITS.note } },
        },
        response: { 200: beadReply, ...errors },
      },
    },
    async (request) => {
      app.agentbox.audit.admit('closing a bead');
      const bead = await beads().closeBead(request.params.id, request.body.outcome, request.body.note);
      await app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.beadClosed, 'beads', { bead: bead.id, outcome: request.body.outcome });
      app.agentbox.agentEvents.beadChanged(bead);
      return { bead };
    },
  );
}
