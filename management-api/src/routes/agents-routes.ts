// /v1/agents: spawn, list, inspect and terminate agent processes; their output as JSON or live Server-Sent Events.
import { once } from 'node:events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import { resolveSpawn, type SpawnBody } from '../adapters/orchestrator/agent-profiles.js';
import type { AgentProcess } from '../adapters/orchestrator/orchestrator-adapter.js';
import { MAX_DEADLINE_SEC } from '../adapters/orchestrator/spawn-request.js';
import { AGENT_NAME } from '../grammar/agent-name.js';
import { TTY_COLS, TTY_ROWS } from '../adapters/orchestrator/agent-tty.js';
import { agentScopes } from '../auth/agent-scopes.js';
import { callerOf } from '../auth/caller.js';
import { ApiError, errorResponses } from '../errors.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { policyOf } from '../policy/compiled-cache.js';
import { enforce } from '../policy/gate.js';
import { AUTONOMIES } from '../policy/policy-types.js';
import type { MutationLimits } from './events-routes.js';
import { buildFork, type ForkDir } from '../snapshots/workspace-snapshots.js';
import { DEFAULT_CHECKPOINTS_KEPT, profilePlan, type CheckpointPlan, type FollowedPlan } from '../snapshots/agent-checkpoints.js';
import { snapshotIdSchema } from '../snapshots/snapshot-manifest.js';
import { resolveLimits } from '../sandbox/limits/request.js';
import type { LimitSettings, RequestedLimits } from '../sandbox/limits/budgets.js';

/** Grace period of DELETE /v1/agents/:id when the caller names none. */
export const DEFAULT_GRACE_MS = 5_000;
/** A comment line this often keeps proxies from timing an output stream out. */
const HEARTBEAT_MS = 15_000;

export const errors = errorResponses(400, 401, 403, 404, 409, 429, 503, 504);
const agentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    command: { type: 'string' },
    args: { type: 'array', items: { type: 'string' } },
    state: { type: 'string', enum: ['starting', 'running', 'exited', 'failed', 'terminated', 'crash-loop'] },
    pid: { type: 'integer' },
    exitCode: { type: 'integer' },
    signal: { type: 'string' },
    startedAt: { type: 'string' },
    endedAt: { type: 'string' },
    usage: {
      type: 'object',
      description: "Resource use of the agent's process tree as last sampled (about once a second), kept after the exit",
      properties: {
        rss_bytes: { type: 'integer' },
        pss_bytes: { type: 'integer' },
        inotify_instances: {
          type: 'integer',
          description: 'inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify',
        },
        inotify_watches: {
          type: 'integer',
          description:
            "The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify",
        },
        memfd_bytes: {
          type: 'integer',
          description: 'Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes',
        },
        cpu_seconds: { type: 'number' },
        processes: { type: 'integer' },
        disk_bytes: {
          type: 'integer',
          description:
            'Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample)',
        },
        disk_entries: {
          type: 'integer',
          description:
            'Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget)',
        },
        disk_measured_at: { type: 'string', format: 'date-time', description: 'When the walk that measured disk_bytes began' },
      },
    },
    limits: {
      type: 'object',
      description: 'The budgets the agent runs under',
      properties: {
        memory_bytes: { type: 'integer' },
        cpu_seconds: { type: 'integer' },
        processes: { type: 'integer' },
        disk_bytes: { type: 'integer' },
        entries: { type: 'integer', description: 'Entries under its directories the disk walk measures: more ends it with limit:entries' },
      },
    },
    reason: {
      type: 'string',
      description:
        'Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec)',
    },
    durationMs: { type: 'integer', description: 'Milliseconds from the start to the end, once ended' },
    profile: { type: 'string', description: 'The manifest profile it was started from (agents.profiles.<name>)' },
    tty: { type: 'boolean', description: 'The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input' },
    execOf: { type: 'string', description: "A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it" },
    cwd: { type: 'string', description: "Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it" },
  },
} as const;
const refusalsSchema = {
  type: 'array',
  description:
    "The agent's recent egress refusals (GET of one agent only, on a box with an egress proxy), newest last, at most 20: the host and port, the rule that refused, and the manifest key that would allow it",
  items: {
    type: 'object',
    properties: { at: { type: 'string' }, host: { type: 'string' }, port: { type: 'integer' }, reason: { type: 'string' }, allowWith: { type: 'string' } },
  },
} as const;
/** The checkpoints of a followed agent (GET /v1/agents/{id}). */
const checkpointsSchema = {
  type: 'object',
  description: 'While the agent runs with checkpoints: their plan, and the checkpoints kept so far (snapshot ids, oldest first)',
  properties: { everySec: { type: 'integer' }, keep: { type: 'integer' }, made: { type: 'array', items: { type: 'string' } } },
} as const;
/** An agent as GET /v1/agents lists it: with its checkpoints while it runs with them. */
const listedAgentSchema = { ...agentSchema, properties: { ...agentSchema.properties, checkpoints: checkpointsSchema } } as const;
const oneAgentSchema = { ...listedAgentSchema, properties: { ...listedAgentSchema.properties, refusals: refusalsSchema } } as const;

/** `agent` with its checkpoints, while it is followed by them (the plan and those kept so far). */
function withCheckpoints<T extends { id: string }>(app: FastifyInstance, agent: T): T & { checkpoints?: FollowedPlan } {
  const checkpoints = app.agentCheckpoints.planOf(agent.id);
  return checkpoints ? { ...agent, checkpoints } : agent;
}

/** GET /v1/agents's body, which the dashboard's agents topic sends too. */
export async function agentsBody(app: FastifyInstance): Promise<{ agents: Array<AgentProcess & { checkpoints?: FollowedPlan }> }> {
  return { agents: (await app.agentbox.resolver.slot('orchestrator').list()).map((a) => withCheckpoints(app, a)) };
}
const chunkSchema = {
  type: 'object',
  properties: { seq: { type: 'integer' }, stream: { type: 'string' }, time: { type: 'string' }, text: { type: 'string' } },
} as const;
export const idParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' } },
} as const;
const spawnBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    profile: {
      type: 'string',
      pattern: AGENT_NAME.source,
      description:
        'Start a profile of the manifest (agents.profiles.<name>): its command, args, env, cwd, providers, egress, limits, tty and deadlines. The request may then override only name, args, cwd, cols, rows, autonomy, add env variables, and lower limits, timeout_sec and idle_timeout_sec (docs/user/agents.md)',
    },
    name: {
      type: 'string',
      pattern: AGENT_NAME.source,
      description:
        'What the agent is; crash loops are counted by name (default with a profile: the profile name). No dot: it separates the memory namespaces agent.<name>.<more>',
    },
    command: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: 'Executable, absolute or found on the agent PATH (an ad-hoc spawn; never with a profile)',
    },
    args: { type: 'array', maxItems: 256, items: { type: 'string', maxLength: 8192 }, description: "Arguments (default: none, or the profile's)" },
    timeout_sec: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_DEADLINE_SEC,
      description: 'End the agent this many seconds after its start: state terminated, reason timeout',
    },
    idle_timeout_sec: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_DEADLINE_SEC,
      description: 'End the agent after this many seconds without output (and, on a terminal, without input): state terminated, reason idle',
    },
    env: {
      type: 'object',
      maxProperties: 100,
      additionalProperties: { type: 'string', maxLength: 32768 },
      description: 'Extra, non-secret variables; secret-looking names and values are refused',
    },
    cwd: { type: 'string', maxLength: 1024, description: 'Working directory relative to the workspace' },
    autonomy: {
      type: 'string',
      enum: AUTONOMIES,
      description:
        "How the agent meets a [policy] rule that asks: autonomous (refused at once, the rule named) or supervised (held as an approval request, GET /v1/approvals: this request stays open until an operator decides or policy.approval_timeout_sec denies it). Default: the manifest's policy.autonomy",
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      description: "Budgets below the manifest's sandbox.limits: a request may lower them, never raise them",
      properties: {
        memory: { type: 'string', pattern: '^[0-9]{1,15}[kmg]?$', description: 'Memory (PSS of the process tree), a number with an optional unit k, m or g' },
        cpu_seconds: { type: 'integer', minimum: 1, description: 'CPU seconds of the process tree' },
        processes: { type: 'integer', minimum: 1, description: 'Processes in the tree at once' },
        disk: {
          type: 'string',
          pattern: '^[0-9]{1,15}[kmg]?$',
          description: 'Disk under its working and temporary directories, a number with an optional unit k, m or g',
        },
        entries: {
          type: 'integer',
          minimum: 1,
          description: 'Entries (files, directories, links) under its directories the box measures and a snapshot may hold',
        },
      },
    },
    tty: { type: 'boolean', description: 'Run the agent on a pseudo-terminal (stdin, stdout and stderr; its output is also captured as stdout)' },
    fromSnapshot: {
      ...snapshotIdSchema,
      description:
        'A snapshot id (snp_…) to start the agent on a copy of (a fork): its working directory is made from the snapshot, in cwd when given (it must not exist or be empty), else in a new <name>.<8 hex> directory; forks share nothing on disk',
    },
    checkpoints: {
      type: 'object',
      additionalProperties: false,
      required: ['everySec'],
      description:
        'Snapshot the agent\'s working directory every everySec seconds while it runs (label "checkpoint", made and audited as the box\'s own snapshots), keeping the keep newest of them: an older checkpoint is deleted as a newer one is made. A tick while one is being made is skipped. Not for an agent working in the workspace itself (cwd ".")',
      properties: {
        everySec: { type: 'integer', minimum: 1, maximum: 86_400, description: 'Seconds between checkpoints' },
        keep: {
          type: 'integer',
          minimum: 1,
          maximum: 100,
          default: DEFAULT_CHECKPOINTS_KEPT,
          description: `How many of the newest checkpoints are kept (default ${DEFAULT_CHECKPOINTS_KEPT})`,
        },
      },
    },
    cols: { type: 'integer', minimum: TTY_COLS.min, maximum: TTY_COLS.max, description: `Columns of the terminal (with tty; default ${TTY_COLS.default})` },
    rows: { type: 'integer', minimum: TTY_ROWS.min, maximum: TTY_ROWS.max, description: `Rows of the terminal (with tty; default ${TTY_ROWS.default})` },
  },
} as const;

/** How a fork's working directory was made (the spawn's answer, with fromSnapshot). */
const forkSchema = {
  type: 'object',
  description: 'With fromSnapshot: how the working directory was made',
  properties: {
    snapshot: { type: 'string' },
    cloned: { type: 'boolean', description: 'Made by a clone of the snapshot (btrfs): in constant time, sharing its bytes' },
    warm: { type: 'boolean', description: 'A copy built ahead (PUT /v1/snapshots/{sid}/warm) was taken: no copy was made while the spawn waited' },
  },
} as const;

interface OutputQuery {
  after?: number;
  follow?: boolean;
}

/** Register the agent routes (authenticated by the app's bearer hook; spawn and terminate rate limited). */
export function registerAgentRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const agents = () => app.agentbox.resolver.slot('orchestrator');
  // Starting, listing and ending agents is the operator's; an agent token reads only its own record and output.
  const rateLimit = { agent: 'deny' as const, rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } };
  const self = { agent: agentScopes.agentSelf };
  const open = new Set<AbortController>();
  // Before the server stops accepting: fastify's close would otherwise wait on streams that never end.
  app.addHook('preClose', async () => {
    for (const c of open) c.abort();
  });

  app.post<{ Body: SpawnBody & { fromSnapshot?: string; checkpoints?: CheckpointPlan } }>(
    '/v1/agents',
    {
      bodyLimit: limits.bodyLimit,
      config: rateLimit,
      schema: {
        summary: 'Start an agent process in the workspace',
        tags: ['agents'],
        body: spawnBody,
        response: { 201: { type: 'object', properties: { agent: agentSchema, fork: forkSchema } }, ...errors },
      },
    },
    async (request, reply) => {
      // Before anything is created for the agent: a box short of disk keeps what is left for its own state.
      await app.agentbox.probes.disk.admit();
      const { audit } = app.agentbox;
      audit.admit('starting an agent');
      const caller = callerOf(request);
      // [policy] decides before anything is created; its decision is on record either way. A supervised
      // ask holds this request open (queued in app.agentbox.approvals) until it is decided.
      const policy = policyOf(app.agentbox.manifest.policy);
      const { fromSnapshot, checkpoints, ...body } = request.body;
      // An unknown snapshot is a 404 before the policy is asked about a spawn that cannot happen.
      if (fromSnapshot !== undefined) app.agentbox.snapshots.get(fromSnapshot);
      // A profile becomes the request it stands for first: the policy decides on what will run.
      const spawn = resolveSpawn(body, app.agentbox.manifest.agents.profiles);
      const autonomy = spawn.autonomy ?? policy.autonomy;
      const { name, command, args, cwd, profile } = spawn;
      // The request's own checkpoints (keep filled in by the schema's default) replace its profile's.
      const plan: CheckpointPlan | undefined =
        checkpoints ?? profilePlan(profile !== undefined ? app.agentbox.manifest.agents.profiles[profile]?.checkpoints : undefined);
      if (plan !== undefined && (cwd === '.' || cwd === ''))
        throw new ApiError(
          'ABX_ERR_VALIDATION',
          `${checkpoints !== undefined ? 'body/checkpoints' : `agents.profiles.${profile}.checkpoints`}: an agent working in the workspace itself (cwd ".") cannot be checkpointed, as it holds other agents' directories; leave cwd out (its own directory) or name one below the workspace`,
        );
      await enforce(
        policy,
        { kind: 'spawn', agent: name, command, args, ...(cwd !== undefined ? { cwd } : {}), ...(profile !== undefined ? { profile } : {}) },
        {
          agent: null,
          autonomy,
          recordAllowed: true,
          record: (data) => audit.action(caller, AUDIT_KINDS.policyDecision, 'policy', data),
          approver: app.agentbox.approvals.queue,
        },
      );
      // A fork's directory is built before the start, given to the uid the agent will run as.
      const fork: ForkDir | undefined =
        fromSnapshot === undefined
          ? undefined
          : await buildFork(
              app.agentbox.snapshots,
              app.agentbox.paths.workspaceDir,
              fromSnapshot,
              {
                name,
                cwd,
                // Asked once the copy is known: a new name adopts the spare ids a warm copy was built as.
                owner: (offered) => app.agentbox.sandbox.agentOwner(name, offered),
                ...forkBudgets(app.agentbox.sandbox.settings.limits, spawn.limits),
              },
              { room: () => app.agentbox.probes.disk.headroom('workspace'), records: app.agentbox.workspaceTemporaries.records, warm: app.warmForks },
            );
      // The orchestrator records the start (and later the exit) in the audit trail as the caller's.
      const agent = await audit
        .as(caller, () => agents().spawn({ ...spawn, ...(fork ? { cwd: fork.cwd } : {}), autonomy }))
        .catch(async (err: unknown) => {
          await fork?.discard();
          throw err;
        });
      if (fork) {
        request.log.info(
          { event: 'SnapshotForked', snapshot: fromSnapshot, agent: agent.id, cwd: fork.cwd, cloned: fork.cloned, warm: fork.warm },
          `agent ${agent.name} started on snapshot ${fromSnapshot}`,
        );
        await audit.action(caller, AUDIT_KINDS.snapshotForked, 'snapshots', { snapshot: fromSnapshot, agent: agent.id, name: agent.name, cwd: fork.cwd });
      }
      if (!(await audit.spawnRecorded(agent.id))) {
        // adapters.critical has events: an agent whose start is not on record does not run.
        await audit.as({ kind: 'box', reason: 'audit-unavailable' }, () => agents().terminate(agent.id, 0));
        throw new ApiError(
          'ABX_ERR_AUDIT_UNAVAILABLE',
          `agent ${agent.id} was ended at once: its start could not be recorded and the events slot is in adapters.critical (no action without an audit trail); see /health`,
        );
      }
      if (plan !== undefined) app.agentCheckpoints.follow(agent.id, plan);
      app.agentbox.agentEvents.agentsChanged();
      void reply.code(201).header('location', `/v1/agents/${agent.id}`);
      return { agent, ...(fork ? { fork: { snapshot: fromSnapshot, cloned: fork.cloned, warm: fork.warm } } : {}) };
    },
  );

  app.get(
    '/v1/agents',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Every agent the orchestrator knows, oldest first',
        tags: ['agents'],
        response: { 200: { type: 'object', properties: { agents: { type: 'array', items: listedAgentSchema } } }, ...errors },
      },
    },
    async () => agentsBody(app),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/agents/:id',
    {
      config: self,
      schema: {
        summary: 'One agent, with its recent egress refusals',
        tags: ['agents'],
        params: idParams,
        response: { 200: { type: 'object', properties: { agent: oneAgentSchema } }, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      return {
        agent: {
          ...withCheckpoints(app, await agents().status(id)),
          // Only where an egress proxy decides: without one there is nothing to refuse, and no list to show.
          ...(app.agentbox.egress ? { refusals: app.agentbox.egress.refusals(id) } : {}),
        },
      };
    },
  );

  app.delete<{ Params: { id: string }; Querystring: { graceMs?: number } }>(
    '/v1/agents/:id',
    {
      config: rateLimit,
      schema: {
        summary: 'Terminate an agent: SIGTERM to its process group, SIGKILL after graceMs; answers with the final record',
        tags: ['agents'],
        params: idParams,
        querystring: { type: 'object', additionalProperties: false, properties: { graceMs: { type: 'integer', minimum: 0, maximum: 600_000 } } },
        response: { 200: { type: 'object', properties: { agent: agentSchema } }, ...errors },
      },
    },
    async (request) => {
      // Never refused for want of an audit trail: stopping an agent is always allowed. The
      // orchestrator records the request (once, while the agent runs) as the caller's.
      const agent = await app.agentbox.audit.as(callerOf(request), () => agents().terminate(request.params.id, request.query.graceMs ?? DEFAULT_GRACE_MS));
      app.agentbox.agentEvents.agentsChanged();
      return { agent };
    },
  );

  app.get<{ Params: { id: string }; Querystring: OutputQuery }>(
    '/v1/agents/:id/output',
    {
      config: self,
      schema: {
        summary:
          'Captured output after `after`: JSON {chunks}, or with follow=true (or Accept: text/event-stream) live Server-Sent Events until the agent ends; resume with Last-Event-ID',
        tags: ['agents'],
        params: idParams,
        querystring: { type: 'object', additionalProperties: false, properties: { after: { type: 'integer', minimum: 0 }, follow: { type: 'boolean' } } },
        response: { 200: { type: 'object', properties: { chunks: { type: 'array', items: chunkSchema } } }, ...errors },
      },
    },
    async (request, reply) => {
      const after = resumePoint(request);
      const follow = request.query.follow ?? (request.headers.accept ?? '').includes('text/event-stream');
      if (!follow) {
        const chunks = [];
        for await (const chunk of await agents().output(request.params.id, { after, follow: false, signal: AbortSignal.timeout(10_000) })) chunks.push(chunk);
        return { chunks };
      }
      return streamOutput(app, request, reply, after, open);
    },
  );
}

/** `after` from Last-Event-ID (a resuming EventSource) or the query. */
function resumePoint(request: FastifyRequest<{ Querystring: OutputQuery }>): number {
  const header = request.headers['last-event-id'];
  if (typeof header === 'string' && header !== '') {
    if (!/^\d{1,15}$/.test(header)) throw new ApiError('ABX_ERR_VALIDATION', 'Last-Event-ID is not an id this stream sent (a chunk number)');
    return Number(header);
  }
  return request.query.after ?? 0;
}

/**
 * Open the output (errors before this answer as JSON), then send each chunk as an `output` event
 * with its seq as id, and finally an `end` event carrying the agent's record. An error after the
 * stream started is sent as an `error` event.
 */
async function streamOutput(
  app: FastifyInstance,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
  after: number,
  open: Set<AbortController>,
): Promise<void> {
  const orchestrator = app.agentbox.resolver.slot('orchestrator');
  const controller = new AbortController();
  const stream = await orchestrator.output(request.params.id, { after, follow: true, signal: controller.signal });
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  res.write('retry: 2000\n\n');
  open.add(controller);
  res.on('close', () => controller.abort());
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  try {
    for await (const chunk of stream) {
      // Wait for the socket to take more, or for the client to go away (then 'drain' never comes).
      if (!res.write(`id: ${chunk.seq}\nevent: output\ndata: ${JSON.stringify(chunk)}\n\n`))
        await once(res, 'drain', { signal: controller.signal }).catch(() => undefined);
    }
    if (!controller.signal.aborted) res.write(`event: end\ndata: ${JSON.stringify({ agent: await orchestrator.status(request.params.id) })}\n\n`);
  } catch (err) {
    if (!controller.signal.aborted) {
      request.log.warn({ err, event: 'AgentOutputStreamFailed' }, 'the agent output stream ended with an error');
      const body =
        err instanceof ApiError ? { error: err.code, message: err.message } : { error: 'ABX_ERR_INTERNAL', message: 'the stream failed; see the API log' };
      res.write(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    controller.abort();
    open.delete(controller);
    res.end();
  }
}

/** The disk and entry budgets a fork will run under; none without them, or when its limits are malformed (the spawn says why). */
function forkBudgets(ceiling: LimitSettings | undefined, requested: RequestedLimits | undefined): { diskBudget?: number; entriesBudget?: number } {
  try {
    const limits = resolveLimits(ceiling, requested);
    return {
      ...(limits.disk_bytes !== undefined ? { diskBudget: limits.disk_bytes } : {}),
      ...(limits.entries !== undefined ? { entriesBudget: limits.entries } : {}),
    };
  } catch {
    return {};
  }
}
