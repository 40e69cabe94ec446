// POST /v1/agents/:id/exec: run a command in a running agent's sandbox, directory and identity (as `docker exec` does in a container).
import type { FastifyInstance } from 'fastify';
import '../app-state.js';
import type { ExecRequest } from '../adapters/orchestrator/agent-exec.js';
import { TTY_COLS, TTY_ROWS } from '../adapters/orchestrator/agent-tty.js';
import { callerOf } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { policyOf } from '../policy/compiled-cache.js';
import { enforce } from '../policy/gate.js';
import { errors, idParams } from './agents-routes.js';
import type { MutationLimits } from './events-routes.js';

const execBody = {
  type: 'object',
  additionalProperties: false,
  required: ['command'],
  properties: {
    command: { type: 'string', minLength: 1, maxLength: 4096, description: "Executable, absolute or found on the agent's PATH" },
    args: { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 8192 }, default: [] },
    env: {
      type: 'object',
      maxProperties: 100,
      additionalProperties: { type: 'string', maxLength: 32768 },
      description: "Extra, non-secret variables on top of the agent's environment",
    },
    tty: { type: 'boolean', description: 'Run the command on a pseudo-terminal of its own (GET /v1/agents/{newId}/terminal)' },
    cols: { type: 'integer', minimum: TTY_COLS.min, maximum: TTY_COLS.max },
    rows: { type: 'integer', minimum: TTY_ROWS.min, maximum: TTY_ROWS.max },
  },
} as const;

/**
 * Register the exec route. Operator only (`config.agent: 'deny'`): an agent token may exec into no
 * agent, its own included (it can start processes in its sandbox itself), and never into another's.
 */
export function registerExecRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const agents = () => app.agentbox.resolver.slot('orchestrator');
  app.post<{ Params: { id: string }; Body: ExecRequest }>(
    '/v1/agents/:id/exec',
    {
      bodyLimit: limits.bodyLimit,
      config: { agent: 'deny', rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
      schema: {
        summary:
          "Run a command in a running agent's sandbox: the same launcher policy, uid, Landlock grants, working and temporary directories, egress credential and API token, under a budget of the agent's limits; ended with the agent. Answers with the command's own record (execOf names the agent): follow it through /output, /terminal and DELETE like any agent",
        tags: ['agents'],
        params: idParams,
        body: execBody,
        response: { 201: { type: 'object', properties: { agent: { type: 'object', additionalProperties: true } } }, ...errors },
      },
    },
    async (request, reply) => {
      await app.agentbox.probes.disk.admit();
      const { audit } = app.agentbox;
      audit.admit('starting a command in an agent');
      const caller = callerOf(request);
      const host = await agents().status(request.params.id);
      // [policy] judges the command as a spawn of the agent it runs in.
      const policy = policyOf(app.agentbox.manifest.policy);
      const { command, args } = request.body;
      await enforce(
        policy,
        { kind: 'spawn', agent: host.name, command, args },
        {
          agent: null,
          autonomy: policy.autonomy,
          recordAllowed: true,
          record: (data) => audit.action(caller, AUDIT_KINDS.policyDecision, 'policy', data),
          approver: app.agentbox.approvals.queue,
        },
      );
      const agent = await audit.as(caller, () => agents().exec(request.params.id, { ...request.body, args: args ?? [] }));
      if (!(await audit.spawnRecorded(agent.id))) {
        await audit.as({ kind: 'box', reason: 'audit-unavailable' }, () => agents().terminate(agent.id, 0));
        throw new ApiError(
          'ABX_ERR_AUDIT_UNAVAILABLE',
          `command ${agent.id} was ended at once: its start could not be recorded and the events slot is in adapters.critical; see /health`,
        );
      }
      app.agentbox.agentEvents.agentsChanged();
      void reply.code(201).header('location', `/v1/agents/${agent.id}`);
      return { agent };
    },
  );
}
