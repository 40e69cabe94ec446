// HTTP request counts and latency buckets kept as plain numbers, exported to Prometheus at scrape time.
import type { Metric, Registry } from 'prom-client';

/** Counts and latency buckets of one (method, route). */
export class RouteStats {
  /** Non-cumulative bucket counts; the last slot is +Inf. */
  readonly buckets: Float64Array;
  readonly statuses = new Map<number, number>();
  sum = 0;
  count = 0;

  constructor(
    readonly method: string,
    readonly route: string,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  /** Count one answered request. */
  record(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]!) i++;
    this.buckets[i]! += 1;
    this.sum += seconds;
    this.count += 1;
  }
}

/**
 * The request counter and duration histogram of the API. prom-client's own metrics hash their
 * label values on every observation; here the request path only adds to numbers, and the
 * exposition is built when Prometheus scrapes.
 */
export class RequestStats {
  readonly #routes = new Map<string, Map<string, RouteStats>>();

  constructor(
    registry: Registry,
    names: { counter: string; histogram: string },
    help: { counter: string; histogram: string },
    private readonly bounds: readonly number[],
  ) {
    const counter = {
      name: names.counter,
      help: help.counter,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...counter, values: this.#counterValues() }),
    };
    const histogram = {
      name: names.histogram,
      help: help.histogram,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ ...histogram, values: this.#histogramValues(names.histogram) }),
    };
    // Any object with name, help, type and get() is a metric to the registry.
    registry.registerMetric(counter as unknown as Metric);
    registry.registerMetric(histogram as unknown as Metric);
  }

  /** The stats of (method, route), created on first use (routes are templates, so the set is bounded). */
  route(method: string, route: string): RouteStats {
    let byMethod = this.#routes.get(route);
    if (!byMethod) this.#routes.set(route, (byMethod = new Map()));
    let stats = byMethod.get(method);
    if (!stats) byMethod.set(method, (stats = new RouteStats(method, route, this.bounds)));
    return stats;
  }

  #all(): RouteStats[] {
    return [...this.#routes.values()].flatMap((m) => [...m.values()]);
  }

  #counterValues(): Array<{ labels: Record<string, string>; value: number }> {
    return this.#all().flatMap((s) =>
      [...s.statuses].map(([status, value]) => ({ labels: { method: s.method, route: s.route, status: String(status) }, value })),
    );
  }

  #histogramValues(name: string): Array<{ labels: Record<string, string>; value: number; metricName: string }> {
    return this.#all().flatMap((s) => {
      const labels = { method: s.method, route: s.route };
      let cumulative = 0;
      const buckets = [...this.bounds.map(String), '+Inf'].map((le, i) => {
        cumulative += s.buckets[i]!;
        return { labels: { ...labels, le }, value: cumulative, metricName: `${name}_bucket` };
      });
      return [...buckets, { labels, value: s.sum, metricName: `${name}_sum` }, { labels, value: s.count, metricName: `${name}_count` }];
    });
  }
}
