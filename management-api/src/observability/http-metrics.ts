// Counts and times every HTTP response by route template (never by raw URL: bounded label sets).
import type { FastifyInstance } from 'fastify';
import type { ApiMetrics } from './metrics.js';

/** Add the onResponse hook feeding `agentbox_http_requests_total` and `agentbox_http_request_duration_seconds`. */
export function registerHttpMetrics(app: FastifyInstance, metrics: ApiMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label value, so scanners cannot blow up the series count.
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    metrics.httpRequests.inc({ method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
    done();
  });
}
