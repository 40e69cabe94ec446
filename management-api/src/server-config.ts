// Where the API and metrics listeners bind, and the URL the box advertises to its mesh: the
// manifest, overridden (or filled in) by environment variables.
import type { NormalizedManifest } from './manifest/load-manifest.js';
import { advertiseUrlProblem, isWildcardAddress, listenerUrl } from './grammar/url.js';

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
  /**
   * The base URL the box gives its mesh (client registration, host replica announcement) instead
   * of the listen address; unset: the listen address.
   */
  advertiseUrl?: string;
}

/**
 * `api.bind`/`api.port` and `observability.metrics_bind`/`metrics_port`, overridden by
 * AGENTBOX_API_BIND, AGENTBOX_API_PORT, AGENTBOX_METRICS_BIND, AGENTBOX_METRICS_PORT (the image
 * binds every interface of its private network namespace; tests and parallel runs use port 0).
 */
export function listenConfig(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>>): ListenConfig {
  const advertiseUrl = advertisedUrl(manifest, env);
  return {
    apiHost: env['AGENTBOX_API_BIND'] || manifest.api.bind,
    apiPort: listenPort(env, 'AGENTBOX_API_PORT', manifest.api.port),
    metricsHost: env['AGENTBOX_METRICS_BIND'] || manifest.observability.metrics_bind,
    metricsPort: listenPort(env, 'AGENTBOX_METRICS_PORT', manifest.observability.metrics_port),
    ...(advertiseUrl !== undefined ? { advertiseUrl } : {}),
  };
}

/** The variable the Kubernetes render sets per pod to the pod's own address (read when mesh.advertise_url is empty). */
export const ADVERTISE_URL_ENV = 'AGENTBOX_ADVERTISE_URL';

/**
 * The URL the box advertises to its mesh: mesh.advertise_url (checked by rule E050), else a
 * non-empty AGENTBOX_ADVERTISE_URL, checked the same way (throws ListenConfigError naming the
 * variable), else undefined (the listen address). A trailing slash is dropped: paths are appended.
 */
export function advertisedUrl(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const fromManifest = manifest.mesh.advertise_url;
  const raw = fromManifest !== '' ? fromManifest : env[ADVERTISE_URL_ENV];
  if (raw === undefined || raw === '') return undefined;
  const problem = advertiseUrlProblem(raw);
  if (problem)
    throw new ListenConfigError(
      `${fromManifest !== '' ? 'mesh.advertise_url' : ADVERTISE_URL_ENV} = "${raw}" ${problem}; set it to the http(s) address other boxes reach this API at`,
    );
  return raw.replace(/\/+$/, '');
}

/** A port from environment variable `name` (0-65535, 0 = any free port), else `fallback`; throws ListenConfigError naming the variable. */
export function listenPort(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) throw new ListenConfigError(`${name} must be a port number 0-65535 (0 = any free port), not "${raw}"`);
  return n;
}

/**
 * An http:// URL for a bound listener. A wildcard bind (the image listens on every interface of
 * its network namespace) is shown as `advertised` — the manifest's bind, the address the box is
 * reached on — and that as grammar/url.ts `listenerUrl` shows a bind (a wildcard on loopback).
 */
export function urlFor(host: string, port: number, path = '', advertised = host): string {
  return listenerUrl(isWildcardAddress(host) ? advertised : host, port, path);
}
