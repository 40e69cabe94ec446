// /v1/agents/:id/snapshots, /v1/snapshots and /v1/agents/:id/restore: workspace snapshots made, listed, read, deleted and restored in place.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import type { AgentProcess } from '../adapters/orchestrator/orchestrator-adapter.js';
import { agentScopes } from '../auth/agent-scopes.js';
import { type Actor, callerOf } from '../auth/caller.js';
import { ApiError, errorResponses } from '../errors.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { snapshotIdSchema, type SnapshotSummary } from '../snapshots/snapshot-manifest.js';
import { agentSnapshotAllowance } from '../snapshots/agent-snapshot-budget.js';
import type { SnapshotStore } from '../snapshots/snapshot-store.js';
import { captureAgent, restoreAgent } from '../snapshots/workspace-snapshots.js';
import { AgentCheckpoints, CHECKPOINT_LABEL } from '../snapshots/agent-checkpoints.js';
import { OneAtATime } from '../serial-lock.js';
import type { WarmStatus } from '../snapshots/warm-forks.js';
import { MAX_WARM_FORKS } from '../grammar/warm-forks-count.js';
import { idParams } from './agents-routes.js';
import type { MutationLimits } from './events-routes.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429, 503, 507);
const sidParams = { type: 'object', additionalProperties: false, required: ['sid'], properties: { sid: snapshotIdSchema } } as const;
const statsSchema = {
  type: 'object',
  properties: {
    files: { type: 'integer' },
    dirs: { type: 'integer' },
    symlinks: { type: 'integer' },
    skipped: { type: 'integer', description: 'FIFOs, sockets, devices and files of other owners linked in: never captured' },
    bytes: { type: 'integer', description: "Sum of the files' sizes" },
    holeBytes: {
      type: 'integer',
      description: 'Of those, bytes in whole 1 MiB chunks of zeros, which forks and restores leave as holes (a sparse file comes back sparse)',
    },
    buildBytes: {
      type: 'integer',
      description:
        "What a fork or a restore that copies allocates on disk: each file's bytes less its holes in 4 KiB blocks (each hard link a file of its own), each directory's blocks, a block for each link whose target is 60 bytes or more; absent in a snapshot made before it was recorded",
    },
    chunks: { type: 'integer' },
    storedBytes: { type: 'integer', description: 'Bytes of the distinct chunks it refers to (what it holds once deduplicated)' },
    addedChunks: { type: 'integer' },
    addedBytes: { type: 'integer', description: 'Bytes this snapshot added to the store; the rest was there already (shared)' },
    reusedFiles: { type: 'integer', description: "Files unchanged since the agent's previous snapshot (same inode, size, mtime, ctime), taken from it unread" },
    aheadFiles: {
      type: 'integer',
      description:
        'Of reusedFiles, those whose lstat a helper thread made while the walk went on (a second snapshot of at least 5,000 files, on two cores or more); absent when none',
    },
    reusedDirs: {
      type: 'integer',
      description: "Directories unchanged since the agent's previous snapshot (same inode, mtime, ctime), whose names were taken from it without listing them",
    },
    changed: { type: 'integer', description: 'Files that kept changing while read (three reads); kept as last read' },
    durationMs: { type: 'integer' },
  },
} as const;
const warmProperties = {
  wanted: { type: 'integer' },
  ready: { type: 'integer' },
  building: { type: 'boolean' },
  error: { type: 'string' },
} as const;
export const snapshotSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    label: { type: 'string' },
    createdAt: { type: 'string' },
    agent: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, cwd: { type: 'string' } } },
    stats: statsSchema,
    changedPaths: { type: 'array', items: { type: 'string' }, description: 'The first 100 files that kept changing while read' },
    clone: {
      type: 'boolean',
      description: 'It keeps a clone (btrfs): its forks and restores are made in constant time, sharing its bytes',
    },
    warm: {
      type: 'object',
      description:
        'GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed',
      properties: warmProperties,
    },
    sharing: {
      type: 'object',
      description:
        'GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget)',
      properties: {
        storedBytes: { type: 'integer' },
        sharedBytes: { type: 'integer' },
        exclusiveBytes: { type: 'integer' },
        chargedBytes: { type: 'integer' },
      },
    },
  },
} as const;

/** What the routes show of a summary (its format and entries hash are the store's own), and whether `store` keeps its clone. */
export const snapshotView = (store: SnapshotStore, s: SnapshotSummary) => ({
  id: s.id,
  ...(s.label !== undefined ? { label: s.label } : {}),
  createdAt: s.createdAt,
  agent: s.agent,
  stats: s.stats,
  changedPaths: s.changedPaths,
  clone: store.hasClone(s.id),
});

/** The agent's record with the working directory the files API serves; 409 without one. */
async function agentDirOf(app: FastifyInstance, id: string): Promise<AgentProcess & { cwd: string }> {
  const agent = await app.agentbox.resolver.slot('orchestrator').status(id);
  if (typeof agent.cwd !== 'string')
    throw new ApiError('ABX_ERR_CONFLICT', `agent ${id} has no working directory this box can reach (its orchestrator does not report one)`);
  return agent as AgentProcess & { cwd: string };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The agents whose spawn asked for checkpoints (POST /v1/agents `checkpoints`), each on its timer. */
    agentCheckpoints: AgentCheckpoints;
  }
}

/** The log line and the audit record of a snapshot made, the same whether a request or a checkpoint made it. */
async function recordCreated(
  app: FastifyInstance,
  log: FastifyBaseLogger,
  caller: Actor,
  agent: { id: string; name: string },
  snapshot: SnapshotSummary,
  checkpoint: boolean,
): Promise<void> {
  const { files, bytes, addedBytes, changed } = snapshot.stats;
  log.info(
    { event: 'SnapshotCreated', snapshot: snapshot.id, agent: agent.id, files, addedBytes, ...(checkpoint ? { checkpoint } : {}) },
    `${checkpoint ? 'checkpoint' : 'snapshot'} ${snapshot.id} of agent ${agent.name}`,
  );
  await app.agentbox.audit.action(caller, AUDIT_KINDS.snapshotCreated, 'snapshots', {
    snapshot: snapshot.id,
    agent: agent.id,
    name: agent.name,
    files,
    bytes,
    addedBytes,
    changed,
  });
}

/** Checkpoints made as the box's own snapshots, bounded as the operator's are (the disk guard, the agent's hole and entry bounds), audited as the box's doing. */
function agentCheckpoints(app: FastifyInstance): AgentCheckpoints {
  const store = () => app.agentbox.snapshots;
  const byTheBox = { kind: 'box' as const, reason: 'checkpoint' };
  return new AgentCheckpoints({
    logger: app.log,
    take: async (agentId) => {
      const agent = await agentDirOf(app, agentId);
      if (agent.state !== 'starting' && agent.state !== 'running') return undefined;
      await app.agentbox.probes.disk.admit('no checkpoint is taken');
      const snapshot = await captureAgent(store(), app.agentbox.paths.workspaceDir, agent, CHECKPOINT_LABEL, {
        maxHoleBytes: agent.limits?.disk_bytes,
        maxEntries: agent.limits?.entries,
      });
      await recordCreated(app, app.log, byTheBox, agent, snapshot, true);
      return snapshot.id;
    },
    remove: async (sid) => {
      const freed = await store().delete(sid);
      app.warmForks.forget(sid);
      app.log.info({ event: 'SnapshotDeleted', snapshot: sid, ...freed, checkpoint: true }, `checkpoint ${sid} deleted: newer ones replace it`);
      await app.agentbox.audit.action(byTheBox, AUDIT_KINDS.snapshotDeleted, 'snapshots', { snapshot: sid, ...freed });
    },
  });
}

/**
 * An agent token may snapshot its own working directory; listing, reading, deleting and
 * restoring snapshots are the operator's (a snapshot may be restored into another agent, and
 * forks are spawns, which agents never make).
 */
export function registerSnapshotRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const rateLimit = { max: limits.max, timeWindow: limits.timeWindowMs };
  const store = () => app.agentbox.snapshots;
  // An agent's own snapshots, one at a time: checked against its budget and charged in one step.
  const ownSnapshots = new OneAtATime();
  app.decorate('agentCheckpoints', agentCheckpoints(app));
  // Before the store and the orchestrator close: a checkpoint under way ends first, none starts after.
  app.addHook('preClose', async () => app.agentCheckpoints.close());

  app.post<{ Params: { id: string }; Body: { label?: string } | undefined }>(
    '/v1/agents/:id/snapshots',
    {
      bodyLimit: limits.bodyLimit,
      config: { agent: agentScopes.agentSelf, rateLimit },
      schema: {
        summary:
          "Snapshot the agent's working directory, running or ended: content-addressed, deduplicated across snapshots and agents. Each file is as of its own read (read whole, again if it changed meanwhile): not one instant for the whole tree while the agent writes",
        tags: ['snapshots'],
        params: idParams,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { label: { type: 'string', maxLength: 200, description: 'A note shown in listings: one line of text (no control characters)' } },
        },
        response: { 201: { type: 'object', properties: { snapshot: snapshotSchema } }, ...errors },
      },
    },
    async (request, reply) => {
      // One line of text: a label is shown in tables and listings, where a newline or a tab would break the rows.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      if (/[\u0000-\u001f\u007f]/.test(request.body?.label ?? ''))
        throw new ApiError('ABX_ERR_VALIDATION', 'body/label holds a newline, tab or other control character: a label is one line of text');
      await app.agentbox.probes.disk.admit('no snapshot is taken');
      const agent = await agentDirOf(app, request.params.id);
      // Whoever asks, a capture reads through at most the agent's disk budget of holes (workspace-files/hole-allowance.ts).
      const capture = (allowanceBytes?: number) =>
        captureAgent(store(), app.agentbox.paths.workspaceDir, agent, request.body?.label, {
          allowanceBytes,
          maxHoleBytes: agent.limits?.disk_bytes,
          maxEntries: agent.limits?.entries,
        });
      const snapshot = request.agent ? await ownSnapshots.run(agent.name, async () => capture(await agentSnapshotAllowance(store(), agent))) : await capture();
      await recordCreated(app, request.log, callerOf(request), agent, snapshot, false);
      void reply.code(201).header('location', `/v1/snapshots/${snapshot.id}`);
      return { snapshot: snapshotView(store(), snapshot) };
    },
  );

  app.get<{ Querystring: { agent?: string } }>(
    '/v1/snapshots',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Every snapshot in the store, oldest first; ?agent=<id> only those of one agent',
        tags: ['snapshots'],
        querystring: { type: 'object', additionalProperties: false, properties: { agent: idParams.properties.id } },
        response: { 200: { type: 'object', properties: { snapshots: { type: 'array', items: snapshotSchema } } }, ...errors },
      },
    },
    async (request) => ({
      snapshots: store()
        .list()
        .filter((s) => request.query.agent === undefined || s.agent.id === request.query.agent)
        .map((s) => snapshotView(store(), s)),
    }),
  );

  app.get<{ Params: { sid: string } }>(
    '/v1/snapshots/:sid',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'One snapshot, with what it shares with the others now and what only it holds',
        tags: ['snapshots'],
        params: sidParams,
        response: { 200: { type: 'object', properties: { snapshot: snapshotSchema } }, ...errors },
      },
    },
    async (request) => {
      const s = store().get(request.params.sid);
      const warm = app.warmForks.status(s.id);
      return { snapshot: { ...snapshotView(store(), s), ...(warm.wanted > 0 ? { warm } : {}), sharing: await store().sharing(s.id) } };
    },
  );

  app.delete<{ Params: { sid: string } }>(
    '/v1/snapshots/:sid',
    {
      config: { agent: 'deny', rateLimit },
      schema: {
        summary: 'Delete a snapshot; the chunks no other snapshot refers to are removed (the answer says how many bytes that freed)',
        tags: ['snapshots'],
        params: sidParams,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'string' }, freedBytes: { type: 'integer' }, freedChunks: { type: 'integer' } } },
          ...errors,
        },
      },
    },
    async (request) => {
      const { sid } = request.params;
      const freed = await store().delete(sid);
      app.warmForks.forget(sid);
      request.log.info({ event: 'SnapshotDeleted', snapshot: sid, ...freed }, `snapshot ${sid} deleted`);
      await app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.snapshotDeleted, 'snapshots', { snapshot: sid, ...freed });
      return { deleted: sid, ...freed };
    },
  );

  app.put<{ Params: { sid: string }; Body: { forks: number } }>(
    '/v1/snapshots/:sid/warm',
    {
      bodyLimit: limits.bodyLimit,
      config: { agent: 'deny', rateLimit },
      schema: {
        summary:
          "Keep copies of a snapshot built ahead, so that forks of it take one by a rename instead of copying every byte while they wait (0 removes them). Built one at a time in the background, each replaced once a fork takes it; each holds the snapshot's buildBytes on the workspace's volume",
        tags: ['snapshots'],
        params: sidParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['forks'],
          properties: { forks: { type: 'integer', minimum: 0, maximum: MAX_WARM_FORKS, description: 'Copies to keep ready' } },
        },
        response: { 200: { type: 'object', properties: { snapshot: { type: 'string' }, warm: { type: 'object', properties: warmProperties } } }, ...errors },
      },
    },
    async (request) => {
      const { sid } = request.params;
      const { forks } = request.body;
      if (forks > 0) await app.agentbox.probes.disk.admit('no warm fork is built');
      const warm: WarmStatus = await app.warmForks.want(sid, forks);
      request.log.info({ event: 'SnapshotWarmWanted', snapshot: sid, forks }, `${forks} warm forks of snapshot ${sid} wanted`);
      await app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.snapshotWarm, 'snapshots', { snapshot: sid, forks });
      return { snapshot: sid, warm };
    },
  );

  app.post<{ Params: { id: string }; Body: { snapshot: string } }>(
    '/v1/agents/:id/restore',
    {
      bodyLimit: limits.bodyLimit,
      config: { agent: 'deny', rateLimit },
      schema: {
        summary:
          "Replace an ended agent's working directory with a snapshot (409 while it runs): built beside it, then swapped in. Modes (permission bits only), mtimes and links come back; setuid bits, devices and FIFOs never do; files belong to the agent",
        tags: ['snapshots'],
        params: idParams,
        body: { type: 'object', additionalProperties: false, required: ['snapshot'], properties: { snapshot: snapshotIdSchema } },
        response: {
          200: {
            type: 'object',
            properties: {
              restored: { type: 'string' },
              agent: { type: 'string' },
              files: { type: 'integer' },
              bytes: { type: 'integer' },
              cloned: {
                type: 'boolean',
                description: "true when the directory is a snapshot of the snapshot's btrfs clone (no byte copied), false when built by copying",
              },
              warm: {
                type: 'boolean',
                description: 'true when the directory is a copy of the snapshot built ahead (PUT /v1/snapshots/{sid}/warm), renamed into place',
              },
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const sid = request.body.snapshot;
      store().get(sid);
      const agent = await agentDirOf(app, request.params.id);
      if (agent.state === 'running' || agent.state === 'starting')
        throw new ApiError(
          'ABX_ERR_CONFLICT',
          `agent ${agent.id} is ${agent.state}: a workspace is restored in place only once its agent has ended (DELETE /v1/agents/${agent.id} first, or fork the snapshot into a new agent)`,
        );
      await app.agentbox.probes.disk.admit('no snapshot is restored');
      const made = await restoreAgent(store(), app.agentbox.paths.workspaceDir, agent, sid, {
        room: () => app.agentbox.probes.disk.headroom('workspace'),
        leftOver: (name, err) =>
          request.log.warn(
            { event: 'SnapshotRestoreLeftOver', snapshot: sid, agent: agent.id, dir: name, err },
            `agent ${agent.name}'s replaced working directory could not be removed whole: what is left of it is in ${name}, beside the restored one`,
          ),
        records: app.agentbox.workspaceTemporaries.records,
        warm: app.warmForks,
      });
      request.log.info(
        { event: 'SnapshotRestored', snapshot: sid, agent: agent.id, files: made.files, cloned: made.cloned, warm: made.warm },
        `snapshot ${sid} restored into agent ${agent.name}`,
      );
      await app.agentbox.audit.action(callerOf(request), AUDIT_KINDS.snapshotRestored, 'snapshots', {
        snapshot: sid,
        agent: agent.id,
        name: agent.name,
        ...made,
      });
      return { restored: sid, agent: agent.id, ...made };
    },
  );
}
