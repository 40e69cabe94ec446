// Counts and times every HTTP response by route template (never by raw URL: bounded label sets).
import type { FastifyInstance } from 'fastify';
import type { ApiMetrics } from './metrics.js';

/** Add the onResponse hook feeding `agentbox_http_requests_total` and `agentbox_http_request_duration_seconds`. */
export function registerHttpMetrics(app: FastifyInstance, metrics: ApiMetrics): void {
  // Label children are cached: resolving labels hashes them on every call, and this hook runs
  // on every request. The key space is bounded (route templates × methods × statuses).
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(value: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label value, so scanners cannot blow up the series count.
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    const status = String(reply.statusCode);
    const timerKey = `${method} ${route}`;
    const counterKey = `${timerKey} ${status}`;
    let counter = counters.get(counterKey);
    if (!counter) counters.set(counterKey, (counter = metrics.httpRequests.labels({ method, route, status })));
    let timer = timers.get(timerKey);
    if (!timer) timers.set(timerKey, (timer = metrics.httpDuration.labels({ method, route })));
    counter.inc();
    timer.observe(reply.elapsedTime / 1000);
    done();
  });
}
