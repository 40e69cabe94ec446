// Counts, times and logs every completed request, by route template (never by raw URL: bounded label sets).
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { ActivityCounter } from './idle-compaction.js';
import type { CoreMetrics } from './metrics.js';
import type { RouteStats } from './request-stats.js';

/** The label value every URL without a route shares, so scanners cannot blow up the series count. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the not-found handler calls, so unmatched requests are counted and logged like the rest. */
export type UnmatchedObserver = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Feed `agentbox_http_requests_total` and `agentbox_http_request_duration_seconds` and write one
 * `request completed` line per request (fastify's own request logging is off: it logs twice per
 * request and costs even when silenced). Probe routes log through a warn-level logger, so their
 * lines cost a no-op call.
 *
 * The hook is attached to each route as it is declared (`onRoute`) rather than globally: the
 * route's template is then known in advance, so the request path neither builds
 * `request.routeOptions` (a fresh object per read) nor looks up its statistics by name. Call
 * this before any route is registered. Returns the observer the not-found handler must call.
 */
export function registerRequestObserver(app: FastifyInstance, metrics: CoreMetrics, activity?: ActivityCounter): UnmatchedObserver {
  app.addHook('onRoute', (route) => {
    const observe = routeObserver(metrics, route.url ?? route.path ?? UNMATCHED_ROUTE, activity);
    const existing = route.onResponse;
    route.onResponse = existing === undefined ? [observe] : [...(Array.isArray(existing) ? existing : [existing]), observe];
  });
  return (request, reply) => {
    // The not-found context has no route of its own; its answer is observed when it is written.
    reply.raw.once('finish', () => completed(request, reply, metrics.http.route(request.method, UNMATCHED_ROUTE), activity));
  };
}

/** The onResponse hook of one route: its statistics per method, created on first use. */
function routeObserver(metrics: CoreMetrics, url: string, activity: ActivityCounter | undefined): onResponseHookHandler {
  const byMethod = new Map<string, RouteStats>();
  return (request, reply, done) => {
    let stats = byMethod.get(request.method);
    if (!stats) byMethod.set(request.method, (stats = metrics.http.route(request.method, url)));
    completed(request, reply, stats, activity);
    done();
  };
}

function completed(request: FastifyRequest, reply: FastifyReply, stats: RouteStats, activity: ActivityCounter | undefined): void {
  activity?.touch();
  const elapsedMs = reply.elapsedTime;
  stats.record(reply.statusCode, elapsedMs / 1000);
  request.log.info({ req: request, res: { statusCode: reply.statusCode }, responseTime: elapsedMs }, 'request completed');
}
