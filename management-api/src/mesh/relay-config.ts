// The embedded relay's settings, read from [sovereign_mesh.relay] of a normalized manifest, and the
// URL the box's own processes use to reach it.
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import { listenPort } from '../server-config.js';
import { listenerUrl } from '../grammar/url.js';

/** A relay setting that cannot be served; the message names the manifest key and the fix. */
export class RelayConfigError extends Error {
  constructor(
    /** The manifest key at fault, e.g. `sovereign_mesh.relay.port`. */
    readonly key: string,
    message: string,
  ) {
    super(message);
    this.name = 'RelayConfigError';
  }
}

/** Which events the relay stores: the manifest's `ingress_policy`. */
export type IngressPolicy = 'allowlist' | 'signed-only' | 'open';

/** What the relay programme serves. */
export interface RelayConfig {
  bind: string;
  port: number;
  policy: IngressPolicy;
  /** Authors accepted under `allowlist` (hex): `allowed_pubkeys` (the box's own key is added by the programme). */
  allowedPubkeys: readonly string[];
  /** Kinds accepted; empty accepts every kind. */
  allowedKinds: readonly number[];
}

/** The variable that overrides `sovereign_mesh.relay.port` (parallel boxes; 0 = any free port, which `agentbox up` chooses and passes on). */
export const RELAY_PORT_ENV = 'AGENTBOX_RELAY_PORT';

/** The relay's port: `sovereign_mesh.relay.port`, or AGENTBOX_RELAY_PORT (a malformed value is a RelayConfigError naming it). */
export function relayPort(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>> = {}): number {
  try {
    return listenPort(env, RELAY_PORT_ENV, manifest.sovereign_mesh.relay.port);
  } catch (err) {
    throw new RelayConfigError(RELAY_PORT_ENV, (err as Error).message);
  }
}

/**
 * The relay settings of `manifest` (its port overridden by AGENTBOX_RELAY_PORT in `env`). Throws
 * {@link RelayConfigError} when the manifest does not ask for the relay (the programme was
 * started for a box that has none).
 */
export function relayConfig(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>> = {}): RelayConfig {
  const sm = manifest.sovereign_mesh;
  if (!sm.relay.enabled) {
    throw new RelayConfigError(
      'sovereign_mesh.relay.enabled',
      'sovereign_mesh.relay.enabled is false, so the box has no embedded relay to serve; set [sovereign_mesh.relay] enabled = true, or do not start agentbox-relay',
    );
  }
  if (!sm.enabled) {
    throw new RelayConfigError('sovereign_mesh.enabled', 'the embedded relay needs the Nostr integration: set [sovereign_mesh] enabled = true (rule E010)');
  }
  const { bind, ingress_policy: policy, allowed_pubkeys: allowedPubkeys, allowed_kinds: allowedKinds } = sm.relay;
  return { bind, port: relayPort(manifest, env), policy, allowedPubkeys: [...allowedPubkeys], allowedKinds: [...allowedKinds] };
}

/** The URL the box's own processes reach the embedded relay at (AGENTBOX_RELAY_PORT in `env` moves it), or undefined when it is off. */
export function embeddedRelayUrl(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>> = {}): string | undefined {
  const sm = manifest.sovereign_mesh;
  if (!sm.enabled || !sm.relay.enabled) return undefined;
  // A wildcard bind is reached on loopback, as the API's URLs are.
  return listenerUrl(sm.relay.bind, relayPort(manifest, env), '', 'ws');
}

/**
 * Explain a listen failure in manifest terms: a port in use names `port`, an address that is not
 * the host's names `bind`. Other errors are returned as they are.
 */
export function listenError(err: NodeJS.ErrnoException, config: Pick<RelayConfig, 'bind' | 'port'>): Error {
  const where = `${config.bind} port ${config.port}`;
  if (err.code === 'EADDRINUSE')
    return new RelayConfigError(
      'sovereign_mesh.relay.port',
      `sovereign_mesh.relay.port ${config.port} is already in use on ${config.bind}; choose a free port in [sovereign_mesh.relay] port`,
    );
  if (err.code === 'EACCES')
    return new RelayConfigError(
      'sovereign_mesh.relay.port',
      `cannot listen on ${where} (permission denied); use a port of 1024 or more in [sovereign_mesh.relay] port (rule E026)`,
    );
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') {
    return new RelayConfigError(
      'sovereign_mesh.relay.bind',
      `sovereign_mesh.relay.bind "${config.bind}" is not an address of this host (${err.code}); use 127.0.0.1, or 0.0.0.0 with expose = true`,
    );
  }
  return err;
}
