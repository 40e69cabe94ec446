// The load of the backup benchmark: requests sent on a fixed schedule (open loop), each one's
// latency counted from the moment it was due, not from when it went out — a server that stalls
// cannot slow the sender down and hide the stall, as a closed loop (or autocannon) would let it.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { quantile } from './stats.js';

/** One request of the mix. */
export interface Call {
  /** The route as reported (`POST /v1/beads`). */
  route: string;
  method: 'GET' | 'POST';
  path: string;
  /** JSON text. */
  body?: string;
}

/** One request's outcome. */
export interface Sample {
  route: string;
  /** From when it was due to the end of its response body. */
  ms: number;
  /** How late it went out (the sender's own delay, included in `ms`). */
  lagMs: number;
  /** 0 when no response came (a refused connection, the timeout). */
  status: number;
}

/** A running load; `stop` sends nothing more, waits for the requests in flight and returns every sample. */
export interface Load {
  stop(): Promise<Sample[]>;
}

/** Longer than any stall worth measuring; a request still unanswered then counts as failed, at this latency. */
const REQUEST_TIMEOUT_MS = 30_000;

/** Send `call` with the API key; never rejects (a failure is a sample with status 0). */
export async function send(apiUrl: string, key: string, call: Call, due: number): Promise<Sample> {
  const sent = performance.now();
  let status = 0;
  try {
    const res = await fetch(apiUrl + call.path, {
      method: call.method,
      headers: { authorization: `Bearer ${key}`, ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(call.body !== undefined ? { body: call.body } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    status = res.status;
  } catch {
    // A failed request is a sample with status 0: it counts among the errors, at the time it took.
  }
  return { route: call.route, ms: performance.now() - due, lagMs: sent - due, status };
}

/**
 * Send `rate` requests a second to `apiUrl`, the i-th being `next(i)`, until stopped. Requests due
 * while the sender was late (a timer fired late) go out at once, still timed from when they were due.
 */
export function startLoad(apiUrl: string, key: string, rate: number, next: (i: number) => Call): Load {
  const samples: Sample[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const t0 = performance.now();
  const loop = (async () => {
    for (let i = 0; ; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (stopped) return;
      const request = send(apiUrl, key, next(i), due).then((s) => void samples.push(s));
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
      return samples;
    },
  };
}

/** The figures of a set of samples. */
export interface Summary {
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Responses other than 2xx, and requests without a response. */
  errors: number;
  /** p99 of how late requests went out (the sender's share of the latencies). */
  lagP99: number;
}

export function summarize(samples: readonly Sample[]): Summary {
  const ms = samples.map((s) => s.ms);
  return {
    requests: samples.length,
    p50: quantile(ms, 0.5),
    p95: quantile(ms, 0.95),
    p99: quantile(ms, 0.99),
    max: ms.length ? ms.reduce((a, b) => Math.max(a, b)) : Number.NaN,
    errors: samples.filter((s) => s.status < 200 || s.status > 299).length,
    lagP99: quantile(
      samples.map((s) => s.lagMs),
      0.99,
    ),
  };
}
