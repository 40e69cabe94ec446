// /v1/sandbox/egress: the egress proxy's allowlist, read and replaced at run time (no restart; the manifest is the list again at the next boot).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import schemaJson from '../../../schema/agentbox.schema.json' with { type: 'json' };
import '../app-state.js';
import { callerOf } from '../auth/caller.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { ApiError, errorResponses } from '../errors.js';
import type { EgressPolicy } from '../egress/allowlist.js';
import { entryProblem } from '../grammar/egress-entry.js';
import type { EgressController } from '../egress/controller.js';
import type { MutationLimits } from './events-routes.js';
import { policyOf } from '../policy/compiled-cache.js';
import { evaluate } from '../policy/evaluate.js';
import { isOpen, refusalMessage } from '../policy/gate.js';
import { settle } from '../policy/settle.js';
import { policyEventData } from '../policy/audit-record.js';
import type { EgressChangeAction } from '../policy/policy-types.js';

// The manifest's own item schemas (patterns and bounds), so the API accepts exactly what a manifest may list.
const keys = schemaJson.properties.sandbox.properties.egress.properties;
const { default: _domainsDefault, description: _d, ...allowDomains } = keys.allow_domains;
const { default: _portsDefault, description: _p, ...allowPorts } = keys.allow_ports;

const policyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['allow_domains', 'allow_ports'],
  properties: {
    allow_domains: { ...allowDomains, maxItems: 1000, description: keys.allow_domains.description },
    allow_ports: { ...allowPorts, maxItems: 1000, description: keys.allow_ports.description },
  },
} as const;

const viewSchema = {
  type: 'object',
  properties: {
    port: { type: 'integer' },
    source: { type: 'string', enum: ['manifest', 'runtime'] },
    allow_domains: { type: 'array', items: { type: 'string' } },
    allow_ports: { type: 'array', items: { type: 'integer' } },
  },
} as const;
const errors = errorResponses(400, 401, 403, 429, 503);

/** Register the egress routes (authenticated by the app's gate; the change is rate limited). */
export function registerEgressRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const controller = () => egressController(app);

  // The operator's alone: an agent neither reads nor widens its own allowlist.
  app.get(
    '/v1/sandbox/egress',
    {
      config: { agent: 'deny' },
      schema: {
        summary: "The allowlist the egress proxy enforces now, and whether it is the manifest's or a runtime change",
        tags: ['sandbox'],
        response: { 200: viewSchema, ...errors },
      },
    },
    async () => egressBody(app),
  );

  app.put<{ Body: EgressPolicy }>(
    '/v1/sandbox/egress',
    {
      bodyLimit: limits.bodyLimit,
      config: { agent: 'deny', rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
      schema: {
        summary: 'Replace the allowlist: effective for the next request, kept until the API restarts (the manifest is the list at boot)',
        tags: ['sandbox'],
        body: policyBody,
        response: { 200: viewSchema, ...errors },
      },
    },
    async (request) => {
      request.body.allow_domains.forEach((entry, i) => {
        const problem = entryProblem(entry);
        if (problem) throw new ApiError('ABX_ERR_VALIDATION', `body/allow_domains/${i} (${JSON.stringify(entry)}): ${problem}`);
      });
      app.agentbox.audit.admit('changing the egress allowlist');
      await enforceEgressChange(app, request, request.body);
      const view = await controller().setPolicy(request.body);
      await app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.egressPolicy, 'egress', {
        allow_domains: view.policy.allow_domains,
        allow_ports: view.policy.allow_ports,
        source: view.source,
      });
      return flat(view);
    },
  );
}

/**
 * [policy] on a change of the allowlist: each domain and each port it adds (against the list in
 * force) is one egress-change action; a change that only removes is one action with neither. The
 * first refusal is recorded and refuses the whole change; allowed additions are recorded when a
 * rule (not the default) allowed them.
 */
async function enforceEgressChange(app: FastifyInstance, request: FastifyRequest, next: EgressPolicy): Promise<void> {
  const policy = policyOf(app.agentbox.manifest.policy);
  if (isOpen(policy)) return;
  const now = (await egressController(app).policy()).policy;
  const actions: EgressChangeAction[] = [
    ...next.allow_domains.filter((d) => !now.allow_domains.includes(d)).map((host) => ({ kind: 'egress-change' as const, host })),
    ...next.allow_ports.filter((p) => !now.allow_ports.includes(p)).map((port) => ({ kind: 'egress-change' as const, port })),
  ];
  if (actions.length === 0) actions.push({ kind: 'egress-change' });
  const record = (data: Record<string, unknown>) => app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.policyDecision, 'policy', data);
  const allowed: Array<Record<string, unknown>> = [];
  for (const action of actions) {
    const decision = evaluate(policy, action);
    const outcome = await settle(decision, action, policy.autonomy, app.agentbox.approvals.queue, { agentId: null });
    if (!outcome.allowed) {
      await record(policyEventData(action, outcome, null));
      throw new ApiError('ABX_ERR_POLICY_DENIED', refusalMessage(outcome));
    }
    if (decision.rule !== null) allowed.push(policyEventData(action, outcome, null));
  }
  for (const data of allowed) await record(data);
}

function egressController(app: FastifyInstance): EgressController {
  const egress = app.agentbox.egress;
  if (!egress)
    throw new ApiError('ABX_ERR_EGRESS_UNAVAILABLE', 'this box runs no egress proxy (sandbox.enabled = false, or the API runs outside the box supervisor)');
  return egress;
}

function flat(v: Awaited<ReturnType<EgressController['policy']>>) {
  return { port: v.port, source: v.source, ...v.policy };
}

/** The body of GET /v1/sandbox/egress (also a part of the dashboard's agents topic). */
export async function egressBody(app: FastifyInstance) {
  return flat(await egressController(app).policy());
}
