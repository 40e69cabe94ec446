// Host mode: the registry, the key check of members, and a sweep that evicts silent members and announces this replica.
import path from 'node:path';
import type { Logger } from 'pino';
import { ApiError } from '../../errors.js';
import type { NormalizedManifest } from '../../manifest/load-manifest.js';
import type { RuntimePaths } from '../../runtime-paths.js';
import type { FederationMetrics } from '../federation-metrics.js';
import type { Cosigner } from '../../tlog/cosignature.js';
import { pubkeyToHex } from '../../grammar/pubkey.js';
import { Nip98Verifier } from '../nip98.js';
import { openRegistry } from './open-registry.js';
import { MeshWitness } from './witness.js';
import { loadWitnessKey, WITNESS_KEY_FILE } from './witness-key.js';
import { RegistryUnavailableError, type MemberRecord, type MeshRegistry } from './registry.js';

/** A member is evicted after this many heartbeat intervals without one. */
export const MISSED_HEARTBEATS = 3;
/** Evicted members stay listed this long (unless they register again), then are forgotten. */
export const FORGET_EVICTED_MS = 24 * 60 * 60 * 1000;

/** What /health and /v1/meta show of a host. */
export interface HostStatus {
  mode: 'host';
  registry: 'sqlite' | 'postgres';
  heartbeatIntervalSec: number;
  /** Members by state, counted from the registry when the status is read (see {@link MeshHost.currentStatus}). */
  members: { registered: number; evicted: number };
  /** The last registry failure, cleared by the next success. */
  lastError: string | null;
  /** The witness verifier key members' checkpoints are cosigned with, and how many members are flagged. */
  witness: { verifierKey: string; flagged: number };
}

/** The hex keys of `mesh.allowed_pubkeys`; throws naming the entry when one cannot be decoded (rule E037 refuses it first). */
export function memberAllowlist(keys: readonly string[]): Set<string> {
  return new Set(
    keys.map((key, i) => {
      const hex = pubkeyToHex(key);
      if (hex === undefined) throw new Error(`mesh.allowed_pubkeys[${i}] = "${key}" is not a valid npub or 64-character hex public key`);
      return hex;
    }),
  );
}

/** Run a registry call; a registry failure becomes the 503 the routes answer with. */
export async function registryCall<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RegistryUnavailableError) throw new ApiError('ABX_ERR_MESH_REGISTRY_UNAVAILABLE', err.message);
    throw err;
  }
}

/** A running mesh host. */
export class MeshHost {
  readonly heartbeatIntervalSec: number;
  /** Checks NIP-98 tokens of members: `mesh.allowed_pubkeys`, spent tokens recorded in the registry (shared by replicas). */
  readonly verifier: Nip98Verifier;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #apiUrl: string | undefined;
  #status: HostStatus;
  /** The witness of members' event logs. */
  readonly witness: MeshWitness;

  private constructor(
    readonly registry: MeshRegistry,
    manifest: NormalizedManifest,
    private readonly logger: Logger,
    readonly metrics: FederationMetrics,
    clock: () => Date,
    cosigner: Cosigner,
  ) {
    this.witness = new MeshWitness(registry, cosigner, metrics, logger, clock);
    this.heartbeatIntervalSec = manifest.mesh.heartbeat_interval_sec;
    this.verifier = new Nip98Verifier({
      allowed: memberAllowlist(manifest.mesh.allowed_pubkeys),
      now: () => Math.floor(clock().getTime() / 1000),
      replays: { admit: (id, expiresAt, now) => registryCall(() => registry.admit(id, expiresAt, now)) },
      allowlistKey: 'mesh.allowed_pubkeys of the mesh host',
    });
    this.#status = {
      mode: 'host',
      registry: registry.kind,
      heartbeatIntervalSec: this.heartbeatIntervalSec,
      members: { registered: 0, evicted: 0 },
      lastError: null,
      witness: { verifierKey: cosigner.verifierKey, flagged: 0 },
    };
  }

  /** Open the registry (throws when it cannot be opened: the API does not start) and start the sweep. */
  static async start(options: {
    manifest: NormalizedManifest;
    paths: RuntimePaths;
    env: Readonly<Record<string, string | undefined>>;
    clock: () => Date;
    logger: Logger;
    metrics: FederationMetrics;
  }): Promise<MeshHost> {
    const logger = options.logger.child({ component: 'mesh-host' });
    // The key first: a key file that cannot be used stops the API before a registry is opened.
    const cosigner = await loadWitnessKey(path.join(options.paths.secretsDir, WITNESS_KEY_FILE), logger);
    const registry = await openRegistry({ ...options, logger });
    const host = new MeshHost(registry, options.manifest, logger, options.metrics, options.clock, cosigner);
    host.#schedule(0);
    return host;
  }

  /** How long a session lives without a heartbeat. */
  get ttlMs(): number {
    return MISSED_HEARTBEATS * this.heartbeatIntervalSec * 1000;
  }

  /** This replica's API URL, announced to members so they can fail over to it. */
  setApiUrl(url: string): void {
    this.#apiUrl = url;
    this.#schedule(0);
  }

  status(): HostStatus {
    return { ...this.#status, members: { ...this.#status.members }, witness: { ...this.#status.witness } };
  }

  /**
   * Evict the members past their deadline (each logged as MeshMemberEvicted and counted, whether
   * the sweep or a listing noticed it first), then list them all. Throws what the registry throws.
   */
  async members(): Promise<MemberRecord[]> {
    for (const e of await this.registry.evictExpired(FORGET_EVICTED_MS)) {
      this.metrics.hostEvictions.inc();
      this.logger.info(
        { event: 'MeshMemberEvicted', pubkey: e.pubkey, sessionId: e.sessionId },
        `evicted mesh member ${e.pubkey}: no heartbeat for ${MISSED_HEARTBEATS} intervals of ${this.heartbeatIntervalSec} s`,
      );
    }
    return this.registry.members();
  }

  /**
   * The status with the member counts read from the registry now (evicting what is past its
   * deadline first), so /health agrees with the member list instead of lagging it by up to one
   * sweep interval; the registry is shared by replicas, so no replica's memory could be current.
   * A registry failure keeps the last counts and reports it in `lastError`. Never throws.
   */
  async currentStatus(): Promise<HostStatus> {
    try {
      await this.#count();
      this.#status.lastError = null;
    } catch (err) {
      this.#failed(err);
    }
    return this.status();
  }

  /** Evict members past their deadline, refresh the counts and announce this replica. Never throws. */
  async sweep(): Promise<void> {
    try {
      await this.#count();
      if (this.#apiUrl) await this.registry.announceReplica(this.#apiUrl, this.ttlMs);
      this.#status.lastError = null;
    } catch (err) {
      this.#failed(err);
    }
  }

  async #count(): Promise<void> {
    const members = await this.members();
    const registered = members.filter((m) => m.state === 'registered').length;
    this.#status.members = { registered, evicted: members.length - registered };
    this.metrics.hostMembers.set({ state: 'registered' }, registered);
    this.metrics.hostMembers.set({ state: 'evicted' }, members.length - registered);
    const flagged = await this.registry.flaggedCount();
    this.#status.witness.flagged = flagged;
    this.metrics.witnessFlagged.set(flagged);
  }

  #failed(err: unknown): void {
    this.#status.lastError = (err as Error).message;
    this.logger.warn({ event: 'MeshRegistryFailed', err }, `the mesh registry failed: ${(err as Error).message}`);
  }

  #schedule(ms: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#sweeping = this.sweep().finally(() => {
        this.#sweeping = undefined;
        if (this.#timer) this.#schedule(this.heartbeatIntervalSec * 1000);
      });
    }, ms).unref();
  }

  /** Stop the sweep and close the registry. */
  async close(): Promise<void> {
    const timer = this.#timer;
    this.#timer = undefined;
    if (timer) clearTimeout(timer);
    await this.#sweeping;
    await this.registry.close();
  }
}
