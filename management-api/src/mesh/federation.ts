// Federation by mesh.mode: standalone does nothing (no network call at all), client registers with its host, host runs the registry.
import path from 'node:path';
import type { Logger } from 'pino';
import { isSlotUsable } from '../adapters/slot-state.js';
import type { AdapterResolver } from '../adapters/resolver.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { ReadinessSources } from '../probes/readiness-sources.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { FederationClient, type ClientStatus, type ClientTiming } from './client/federation-client.js';
import { memberReport } from './client/member-report.js';
import { MemberWitness, type WitnessedLogSource } from './client/member-witness.js';
import type { FederationMetrics } from './federation-metrics.js';
import { MeshHost, type HostStatus } from './host/mesh-host.js';
import type { BoxIdentity } from './identity.js';

/** What /health and /v1/meta show under `federation`. */
export type FederationStatus = { mode: 'standalone'; state: 'disabled' } | ClientStatus | HostStatus;

/** The box's part in a mesh. */
export interface Federation {
  /** Set in mode host. */
  host: MeshHost | undefined;
  /** Set in mode client. */
  client: FederationClient | undefined;
  status(): FederationStatus;
  /** The status as of now: a host counts its members in the registry (a client or standalone box answers {@link status}). */
  currentStatus(): Promise<FederationStatus>;
  /** The API listens at `apiUrl`: a client registers, a host announces this replica. */
  listening(apiUrl: string): void;
  close(): Promise<void>;
}

/** Options of {@link startFederation}. */
export interface FederationOptions {
  manifest: NormalizedManifest;
  manifestSha256: string;
  imageHash: string;
  paths: RuntimePaths;
  env: Readonly<Record<string, string | undefined>>;
  identity: BoxIdentity;
  logger: Logger;
  metrics: FederationMetrics;
  clock: () => Date;
  clientTiming?: Partial<ClientTiming>;
  /**
   * What a client reports from: the adapters and readiness. Asked for at each report, never
   * before {@link Federation.listening}, by which time every service of the API has started.
   */
  reportFrom: () => { resolver: AdapterResolver; probes: ReadinessSources };
}

/**
 * Start the box's part: a host opens its registry now (a registry that cannot be opened stops the
 * API from starting); a client is built now and registers once the API listens.
 */
export async function startFederation(options: FederationOptions): Promise<Federation> {
  const { manifest, metrics } = options;
  const mode = manifest.mesh.mode;
  metrics.clientState.set({ state: 'disabled' }, mode === 'client' ? 0 : 1);
  const host = mode === 'host' ? await MeshHost.start({ ...options }) : undefined;
  const client =
    mode === 'client'
      ? new FederationClient({
          hostUrl: manifest.mesh.host_url,
          identity: options.identity,
          report: memberReport({
            pubkey: options.identity.pubkey,
            name: manifest.agentbox.name,
            imageHash: options.imageHash,
            manifestSha256: options.manifestSha256,
            resolver: () => options.reportFrom().resolver,
            probes: () => options.reportFrom().probes,
          }),
          logger: options.logger.child({ component: 'mesh-client' }),
          metrics,
          clock: options.clock,
          ...(options.clientTiming ? { timing: options.clientTiming } : {}),
          witness: new MemberWitness({
            source: () => witnessedLog(options.reportFrom().resolver),
            eventsDir: path.join(options.paths.stateDir, 'events'),
            logger: options.logger.child({ component: 'mesh-client' }),
            clock: options.clock,
          }),
        })
      : undefined;
  const status = (): FederationStatus => {
    if (host) return host.status();
    if (client) return client.status();
    return { mode: 'standalone', state: 'disabled' };
  };
  return {
    host,
    client,
    status,
    async currentStatus() {
      return host ? host.currentStatus() : status();
    },
    listening(apiUrl) {
      host?.setApiUrl(apiUrl);
      client?.start(apiUrl);
    },
    async close() {
      await client?.close();
      await host?.close();
    },
  };
}

/** The event log to offer: the events slot while it is on and usable (a slot without a tree rejects, and nothing is offered). */
function witnessedLog(resolver: AdapterResolver): WitnessedLogSource | undefined {
  const events = resolver.statuses().find((s) => s.slot === 'events');
  if (!events || events.impl === 'off' || !isSlotUsable(events.state)) return undefined;
  const slot = resolver.slot('events');
  return { checkpoint: () => slot.checkpoint(), consistencyProof: (from, to) => slot.consistencyProof(from, to), logKey: () => slot.logKey() };
}
