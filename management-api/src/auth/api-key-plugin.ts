// The box API key as a fastify plugin: read (or created) at start, decorated as `app.apiKey` for the services that check or refuse it.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { RuntimePaths } from '../runtime-paths.js';
import { ensureApiKey } from './api-key-file.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The operator's API key (bearer): the request gate checks it, the egress controller presents it, agents never get it. */
    apiKey: string;
  }
}

/** Options of {@link apiKeyPlugin}. */
export interface ApiKeyPluginOptions {
  paths: RuntimePaths;
  logger: Logger;
}

/** Reads the key file (creating it, 0600, on first start); a file that cannot be used stops the start. */
export const apiKeyPlugin = fp<ApiKeyPluginOptions>(
  async (app, options) => {
    const { key } = await ensureApiKey(options.paths.apiKeyFile, options.logger);
    app.decorate('apiKey', key);
  },
  { name: 'agentbox-api-key' },
);
