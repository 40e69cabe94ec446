// The agent sandbox as a fastify plugin: the confinement the orchestrator spawns through, probed and reported at start; `app.sandbox`.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { AgentSandbox } from './agent-sandbox.js';
import { warnWhenUnconfined } from './sandbox-report.js';
import { sandboxSettings } from './sandbox-settings.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The agent sandbox: what the local orchestrator spawns through; its capability probe for /health and /v1/meta. */
    sandbox: AgentSandbox;
  }
}

/** Options of {@link sandboxPlugin}. */
export interface SandboxPluginOptions {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  logger: Logger;
}

/**
 * Agents may connect to the agents' listener only, never to the operator's port, and reach the
 * egress proxy at the port the proxy reports (both read at each spawn: known once listening).
 */
export const sandboxPlugin = fp<SandboxPluginOptions>(
  async (app, options) => {
    const { agentListener, egress } = app;
    const sandbox = new AgentSandbox(
      sandboxSettings(
        options.manifest,
        options.paths,
        () => agentListener.port(),
        () => egress?.port,
      ),
    );
    app.decorate('sandbox', sandbox);
    warnWhenUnconfined(sandbox, options.logger);
  },
  { name: 'agentbox-sandbox', dependencies: ['agentbox-agent-listener', 'agentbox-egress'] },
);
