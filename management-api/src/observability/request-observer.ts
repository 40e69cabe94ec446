// Counts, times and logs every completed request, by route template (never by raw URL: bounded label sets).
import type { FastifyInstance } from 'fastify';
import type { ApiMetrics } from './metrics.js';

/**
 * Add the onResponse hook feeding `agentbox_http_requests_total` and
 * `agentbox_http_request_duration_seconds` and writing one `request completed` line per request
 * (fastify's own request logging is off: it logs twice per request and costs even when silenced).
 * Probe routes log through a warn-level logger, so their lines cost a no-op call.
 */
export function registerRequestObserver(app: FastifyInstance, metrics: ApiMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label value, so scanners cannot blow up the series count.
    const route = request.routeOptions.url ?? 'unmatched';
    const elapsedMs = reply.elapsedTime;
    metrics.http.route(request.method, route).record(reply.statusCode, elapsedMs / 1000);
    request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime: elapsedMs }, 'request completed');
    done();
  });
}
