// The dashboard's Prometheus metrics: open live streams and sign-ins by result.
import { Counter, Gauge, type Registry } from 'prom-client';

/** Dashboard metrics. */
export interface DashboardMetrics {
  /** `agentbox_dashboard_streams`: open GET /v1/dashboard/stream connections. */
  streams: Gauge;
  /** `agentbox_dashboard_sign_ins_total`, by result (ok, invalid, missing, origin) and via (api-key, nip98, none). */
  signIns: Counter<'result' | 'via'>;
}

/** Create the dashboard metrics in `registry`. */
export function createDashboardMetrics(registry: Registry): DashboardMetrics {
  return {
    streams: new Gauge({ name: 'agentbox_dashboard_streams', help: 'Open dashboard live streams (GET /v1/dashboard/stream).', registers: [registry] }),
    signIns: new Counter({
      name: 'agentbox_dashboard_sign_ins_total',
      help: 'Dashboard sign-ins (POST /ui/session), by result (ok; invalid: wrong key or refused NIP-98 token; missing: no credential; origin: missing or foreign Origin) and via (api-key, nip98, none).',
      labelNames: ['result', 'via'] as const,
      registers: [registry],
    }),
  };
}
