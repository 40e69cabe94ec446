// Every route of the API as a fastify plugin, registered once the app's state is gathered (each route reads `app.agentbox`).
import fp from 'fastify-plugin';
import { registerAgentRoutes } from './agents-routes.js';
import { registerApprovalRoutes } from './approvals-routes.js';
import { registerBeadRoutes } from './beads-routes.js';
import { registerDocsRoute } from './docs-route.js';
import { registerEgressRoutes } from './egress-routes.js';
import { registerEventRoutes, type MutationLimits } from './events-routes.js';
import { registerFileRoutes } from './files-routes.js';
import { registerInputRequestRoutes } from './input-requests-routes.js';
import { registerExecRoutes } from './exec-routes.js';
import { registerMemoryRoutes } from './memory-routes.js';
import { registerMeshHostRoutes } from './mesh-host-routes.js';
import { registerMetaRoute } from './meta-route.js';
import { registerKeyProofRoute } from './key-proof-route.js';
import { registerPodRoutes } from './pods-routes.js';
import { registerProbeRoutes } from './probe-routes.js';
import { registerSnapshotRoutes } from './snapshots-routes.js';
import { registerSnapshotInspectRoutes } from './snapshot-inspect-routes.js';
import { registerTerminalRoutes } from './terminal-routes.js';

/** Options of {@link routesPlugin}. */
export interface RoutesPluginOptions {
  /** Rate limit and body size of mutating routes. */
  limits: MutationLimits;
}

/**
 * Declared after the gate, the request observer, the OpenAPI collector and rate limiting, which
 * attach themselves to each route as it is declared. The mesh host's member routes exist in mode
 * host only.
 */
export const routesPlugin = fp<RoutesPluginOptions>(
  async (app, { limits }) => {
    registerProbeRoutes(app);
    registerMetaRoute(app);
    registerKeyProofRoute(app);
    const { host } = app.agentbox.federation;
    if (host) registerMeshHostRoutes(app, host);
    registerBeadRoutes(app, limits);
    registerPodRoutes(app, limits);
    registerMemoryRoutes(app, limits);
    registerEventRoutes(app, limits);
    registerAgentRoutes(app, limits);
    registerTerminalRoutes(app, limits);
    registerFileRoutes(app, limits);
    registerSnapshotRoutes(app, limits);
    registerSnapshotInspectRoutes(app);
    registerExecRoutes(app, limits);
    registerEgressRoutes(app, limits);
    registerApprovalRoutes(app, limits);
    registerInputRequestRoutes(app, limits);
    registerDocsRoute(app);
  },
  {
    name: 'agentbox-routes',
    dependencies: ['agentbox-state', 'agentbox-request-gate', 'agentbox-error-handling', 'agentbox-openapi', 'agentbox-rate-limit', 'agentbox-websocket'],
  },
);
