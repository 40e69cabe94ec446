// The dashboard's topics, each built by the same code the matching /v1 and probe routes answer with.
import type { FastifyInstance } from 'fastify';
import '../app-state.js';
import { BEADS_PAGER } from '../adapters/beads/bead-rows.js';
import { ApiError } from '../errors.js';
import { agentsBody } from '../routes/agents-routes.js';
import { egressBody } from '../routes/egress-routes.js';
import { membersBody } from '../routes/mesh-host-routes.js';
import { metaBody } from '../routes/meta-route.js';
import { healthBody } from '../routes/probe-routes.js';

/** The topics of GET /v1/dashboard/stream. */
export const TOPICS = ['overview', 'agents', 'beads', 'mesh', 'approvals', 'inputs'] as const;
/** One topic. */
export type Topic = (typeof TOPICS)[number];

/** Builds one topic's snapshot (a JSON-serialisable value). */
export type SnapshotProducer = (topic: Topic) => Promise<unknown>;

/**
 * The producers of one app. A slot that is off, degraded or failing answers `available: false`
 * with the message its route would have answered, so one slot never hides the others.
 */
export function snapshotProducer(app: FastifyInstance): SnapshotProducer {
  const producers: Record<Topic, () => Promise<unknown>> = {
    overview: () => overview(app),
    agents: () => available(async () => ({ ...(await agentsBody(app)), sandbox: await sandboxView(app) })),
    beads: () =>
      available(async () => {
        const beads = app.agentbox.resolver.slot('beads');
        // The first page of each, as large as the routes allow: a board shows what fits, not a log.
        const [ready, all] = await Promise.all([beads.readyQueue({ limit: BEADS_PAGER.maxLimit }), beads.list({ limit: BEADS_PAGER.maxLimit })]);
        return { ready: ready.items, beads: all.items };
      }),
    mesh: async () => {
      const host = app.agentbox.federation.host;
      // `host: false` tells this apart from a host whose registry fails (also `available: false`).
      if (!host) return { available: false, host: false, mode: app.agentbox.manifest.mesh.mode, reason: `mesh.mode = "${app.agentbox.manifest.mesh.mode}"` };
      return available(async () => ({ members: (await membersBody(host)).members }));
    },
    // As GET /v1/approvals answers: the pending requests, oldest first.
    approvals: async () => ({ approvals: app.agentbox.approvals.queue.list() }),
    // As GET /v1/input-requests answers: agents waiting for a person, oldest first.
    inputs: async () => ({ inputRequests: app.agentbox.inputRequests.list() }),
  };
  return (topic) => producers[topic]();
}

/**
 * `ready` and `meta` as their routes answer. `health` is GET /health's body without `uptimeSec`,
 * which changes every second and would make the topic resend forever; the page derives the
 * uptime from `startedAt`.
 */
async function overview(app: FastifyInstance): Promise<unknown> {
  const { status, body } = app.agentbox.probes.readiness.response;
  const { uptimeSec: _uptime, ...health } = await healthBody(app);
  return { ready: { status, body: JSON.parse(body) as unknown }, health, meta: await metaBody(app) };
}

async function available(produce: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  try {
    return { available: true, ...(await produce()) };
  } catch (err) {
    if (err instanceof ApiError) return { available: false, reason: err.message };
    throw err;
  }
}

// The egress proxy's allowlist, or null where the box runs none or it does not answer now.
async function sandboxView(app: FastifyInstance): Promise<unknown> {
  if (!app.agentbox.egress) return null;
  try {
    return await egressBody(app);
  } catch {
    return null;
  }
}
