// /v1/approvals: the pending approval requests of supervised agents, their live stream (SSE), and an operator's decision, signed with an operator key or unsigned with the API key.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import type { Decider } from '../approvals/approval-request.js';
import type { QueueChange } from '../approvals/queue.js';
import { parseScope, scopeText } from '../approvals/scope.js';
import { checkSignedDecision } from '../approvals/signed-decision.js';
import { callerOf } from '../auth/caller.js';
import { ApiError, errorResponses } from '../errors.js';
import type { MutationLimits } from './events-routes.js';
import { HEARTBEAT_MS } from './events-stream.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429, 503);
const ruleSchema = { type: ['object', 'null'], properties: { index: { type: 'integer' }, id: { type: 'string' } } } as const;
/** One request as listed (the digest is what a signed decision states). */
export const approvalSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    digest: { type: 'string', description: 'sha256: of the canonical JSON of {action, agent, arguments, policy}' },
    action: { type: 'string', enum: ['spawn', 'egress', 'provider', 'egress-change'] },
    agent: { type: ['string', 'null'], description: "The agent's name (null: an operator's action)" },
    agentId: { type: ['string', 'null'] },
    arguments: { type: 'object', additionalProperties: true },
    rule: ruleSchema,
    reason: { type: 'string' },
    policy: { type: 'string' },
    created: { type: 'string' },
    expires: { type: 'string' },
    state: { type: 'string', enum: ['pending', 'approved', 'denied', 'timeout'] },
    decision: {
      type: 'object',
      properties: {
        outcome: { type: 'string' },
        reason: { type: 'string' },
        scope: { type: 'string' },
        at: { type: 'string' },
        by: {
          type: 'object',
          properties: {
            actor: { type: 'object', additionalProperties: true },
            signed: { type: 'boolean' },
            pubkey: { type: 'string' },
            signature: { type: 'object', properties: { id: { type: 'string' }, sig: { type: 'string' } } },
          },
        },
      },
    },
  },
} as const;
const idParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^apr_[0-9a-f]{18}$' } },
} as const;
const decisionBody = {
  type: 'object',
  additionalProperties: false,
  required: ['decision'],
  properties: {
    decision: { type: 'string', enum: ['approve', 'deny'] },
    reason: { type: 'string', maxLength: 1000, default: '' },
    scope: {
      type: 'string',
      maxLength: 80,
      default: 'once',
      description:
        'once (this request), agent (later asks of the same rule by the same agent, until the API restarts) or until=<ISO time> (the same, until then; at most 24 h)',
    },
    digest: {
      type: 'string',
      maxLength: 80,
      description: 'The digest the decider saw: a request whose digest differs is refused (409 ABX_ERR_APPROVAL_CHANGED)',
    },
    signed: {
      type: 'object',
      description:
        'A Nostr event of kind 4751 signed by a key of mesh.operator_pubkeys, its content the JSON statement {request, digest, policy, decision, scope, expires}',
      additionalProperties: true,
    },
  },
} as const;

interface DecisionBody {
  decision: 'approve' | 'deny';
  reason: string;
  scope: string;
  digest?: string;
  signed?: Record<string, unknown>;
}

/** Register the approvals routes: the operator's alone (an agent token may neither read nor decide, so an agent cannot approve its own ask). */
export function registerApprovalRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const approvals = () => app.agentbox.approvals;
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.get(
    '/v1/approvals',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Pending approval requests, oldest first',
        tags: ['approvals'],
        response: { 200: { type: 'object', properties: { approvals: { type: 'array', items: approvalSchema } } }, ...errors },
      },
    },
    async () => ({
      approvals: approvals().queue.list(),
    }),
  );

  app.get(
    '/v1/approvals/stream',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Approval requests as Server-Sent Events: a `snapshot` of the pending ones, then one `requested` or `decided` record per change',
        tags: ['approvals'],
        response: { 200: { description: 'text/event-stream: `event: snapshot|requested|decided` / `data: <JSON>`', type: 'string' }, ...errors },
      },
    },
    (request, reply) => streamApprovals(app, request, reply, open),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/approvals/:id',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'One approval request, pending or recently decided',
        tags: ['approvals'],
        params: idParams,
        response: { 200: { type: 'object', properties: { approval: approvalSchema } }, ...errors },
      },
    },
    async (request) => ({
      approval: approvals().queue.get(request.params.id),
    }),
  );

  app.post<{ Params: { id: string }; Body: DecisionBody }>(
    '/v1/approvals/:id',
    {
      bodyLimit: 64 * 1024,
      config: { agent: 'deny', rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
      schema: {
        summary:
          'Approve or deny a pending request, with a reason and a scope; signed by an operator key (signed) or unsigned with the API key or a dashboard session',
        tags: ['approvals'],
        params: idParams,
        body: decisionBody,
        response: { 200: { type: 'object', properties: { approval: approvalSchema } }, ...errors },
      },
    },
    async (request) => {
      const { queue, approvers, used } = approvals();
      const { id } = request.params;
      const body = request.body;
      const pending = queue.pending(id);
      const now = Date.now();
      const scope = parseScope(body.scope, now);
      const actor = callerOf(request) as unknown as Record<string, unknown>;
      let by: Decider = { actor, signed: false };
      try {
        if (body.digest !== undefined && body.digest !== pending.digest)
          throw new ApiError(
            'ABX_ERR_APPROVAL_CHANGED',
            `the decision is for a changed request: it names digest ${body.digest}, the request is ${pending.digest}`,
          );
        if (body.signed !== undefined) {
          const event = checkSignedDecision(body.signed, pending, { decision: body.decision, scope: scopeText(scope) }, approvers, used, now);
          by = { actor, signed: true, pubkey: event.pubkey, signature: { id: event.id, sig: event.sig } };
        }
      } catch (err) {
        if (err instanceof ApiError) {
          const claimed = body.signed as { pubkey?: unknown; id?: unknown; sig?: unknown } | undefined;
          const attempt: Decider = {
            actor,
            signed: false,
            ...(typeof claimed?.pubkey === 'string' ? { pubkey: claimed.pubkey.slice(0, 64) } : {}),
            ...(typeof claimed?.id === 'string' && typeof claimed.sig === 'string'
              ? { signature: { id: claimed.id.slice(0, 64), sig: claimed.sig.slice(0, 128) } }
              : {}),
          };
          await queue.refused(id, attempt, err.message);
        }
        throw err;
      }
      return { approval: queue.decide(id, { approve: body.decision === 'approve', reason: body.reason, scope, by }) };
    },
  );
}

/** A snapshot of the pending requests, then each change as it happens, until the client goes or the app closes. */
async function streamApprovals(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, open: Set<() => void>): Promise<void> {
  const { queue } = app.agentbox.approvals;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'close',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  res.write(`retry: 2000\n\nevent: snapshot\ndata: ${JSON.stringify({ approvals: queue.list() })}\n\n`);
  const unsubscribe = queue.subscribe((change: QueueChange) => void res.write(`event: ${change.type}\ndata: ${JSON.stringify(change.request)}\n\n`));
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  await new Promise<void>((resolve) => {
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      open.delete(end);
      clearInterval(heartbeat);
      unsubscribe();
      res.end();
      resolve();
    };
    open.add(end);
    res.once('close', end);
  });
}
