// Request observation and error answers as a fastify plugin: one log line and the HTTP metrics per request, the uniform error body, the gated not-found answer.
import fp from 'fastify-plugin';
import type { ApiMetrics } from '../api-metrics.js';
import { registerRequestObserver } from '../observability/request-observer.js';
import { registerErrorHandling } from './error-handler.js';

/** Options of {@link errorHandlingPlugin}. */
export interface ErrorHandlingPluginOptions {
  metrics: ApiMetrics;
}

/** Before any route: the observer attaches itself to each route as it is declared; requests count as activity for idle compaction. */
export const errorHandlingPlugin = fp<ErrorHandlingPluginOptions>(
  async (app, options) => {
    registerErrorHandling(app, { onUnmatched: registerRequestObserver(app, options.metrics, app.idleCompaction), gate: app.requestGate });
  },
  { name: 'agentbox-error-handling', dependencies: ['agentbox-request-gate', 'agentbox-idle-compaction'] },
);
