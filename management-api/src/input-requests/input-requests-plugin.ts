// The input requests as a fastify plugin: `app.inputRequests`, listening to the orchestrator's prompts; every open request ends when the app closes.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { ApiMetrics } from '../api-metrics.js';
import { InputRequestQueue } from './queue.js';

declare module 'fastify' {
  interface FastifyInstance {
    inputRequests: InputRequestQueue;
  }
}

/** Options of {@link inputRequestsPlugin}. */
export interface InputRequestsPluginOptions {
  logger: Logger;
  metrics: Pick<ApiMetrics, 'inputRequests'>;
}

/**
 * After the adapters: answers are typed through the orchestrator, events appended through the
 * audit trail, and the orchestrator's prompts arrive through the relay the resolver plugin made.
 */
export const inputRequestsPlugin = fp<InputRequestsPluginOptions>(
  async (app, options) => {
    const queue = new InputRequestQueue({
      metrics: options.metrics.inputRequests,
      logger: options.logger.child({ area: 'input-requests' }),
      record: (kind, data) => app.audit.record(kind, 'input-requests', data),
      type: (agentId, data) => app.resolver.slot('orchestrator').input(agentId, data),
    });
    const unlisten = app.agentInput.listen(queue);
    app.decorate('inputRequests', queue);
    // Before the server stops accepting: a long poll waiting for an answer answers instead of holding the close.
    app.addHook('preClose', async () => {
      unlisten();
      queue.close();
    });
  },
  { name: 'agentbox-input-requests', dependencies: ['agentbox-adapters'] },
);
