// Where the API and metrics listeners bind: the manifest, overridden by environment variables.
import type { NormalizedManifest } from './manifest/load-manifest.js';

/** A bad listener override in the environment. */
export class ListenConfigError extends Error {
  override name = 'ListenConfigError';
}

/** Hosts and ports of the two listeners. Port 0 asks for an ephemeral port. */
export interface ListenConfig {
  apiHost: string;
  apiPort: number;
  metricsHost: string;
  metricsPort: number;
}

/**
 * `api.bind`/`api.port` and `observability.metrics_bind`/`metrics_port`, overridden by
 * AGENTBOX_API_BIND, AGENTBOX_API_PORT, AGENTBOX_METRICS_BIND, AGENTBOX_METRICS_PORT (the image
 * binds every interface of its private network namespace; tests and parallel runs use port 0).
 */
export function listenConfig(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>>): ListenConfig {
  return {
    apiHost: env['AGENTBOX_API_BIND'] || manifest.api.bind,
    apiPort: listenPort(env, 'AGENTBOX_API_PORT', manifest.api.port),
    metricsHost: env['AGENTBOX_METRICS_BIND'] || manifest.observability.metrics_bind,
    metricsPort: listenPort(env, 'AGENTBOX_METRICS_PORT', manifest.observability.metrics_port),
  };
}

/** A port from environment variable `name` (0-65535, 0 = any free port), else `fallback`; throws ListenConfigError naming the variable. */
export function listenPort(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) throw new ListenConfigError(`${name} must be a port number 0-65535 (0 = any free port), not "${raw}"`);
  return n;
}

const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::';

/**
 * An http:// URL for a bound listener. A wildcard bind (the image listens on every interface of
 * its network namespace) is shown as `advertised` — the manifest's bind, the address the box is
 * reached on — or as loopback when that is a wildcard too.
 */
export function urlFor(host: string, port: number, path = '', advertised = host): string {
  const chosen = isWildcard(host) ? advertised : host;
  const shown = chosen === '0.0.0.0' ? '127.0.0.1' : chosen === '::' ? '::1' : chosen;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}${path}`;
}
