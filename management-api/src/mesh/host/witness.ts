// The mesh host as witness of its members' event logs: pins each member's log key, judges the
// checkpoint offered with a heartbeat, cosigns a consistent one, flags a member that rewrote its log.
import type { Logger } from 'pino';
import type { Cosigner } from '../../tlog/cosignature.js';
import { addSignatureLine } from '../../tlog/cosignature.js';
import type { FederationMetrics } from '../federation-metrics.js';
import type { MeshRegistry, WitnessRecord } from './registry.js';
import { judgeOffer, type WitnessOffer } from './witness-decision.js';

/** What a member is told of its log with every registration and heartbeat answer (JSON, snake_case like the rest of the protocol). */
export interface WitnessAnswer {
  /** This host's witness verifier key: the member checks every cosignature with it. */
  verifier_key: string;
  /** `none`: nothing offered; `proof-needed`: send a proof from `size`; `malformed`: the offer could not be read; `refused`: not cosigned (see `reason`). */
  outcome: 'cosigned' | 'none' | 'proof-needed' | 'malformed' | 'refused';
  /** The last checkpoint cosigned for the member (after this call), or null. */
  size: number | null;
  root: string | null;
  /** The cosignature line (`— <witness> <base64>`) for the offered checkpoint. */
  cosignature?: string;
  reason?: string;
  message?: string;
  /** The member's log is flagged: nothing is cosigned until an operator clears it. */
  flagged: boolean;
}

/** The witness of one host replica. */
export class MeshWitness {
  constructor(
    private readonly registry: MeshRegistry,
    private readonly cosigner: Cosigner,
    private readonly metrics: FederationMetrics,
    private readonly logger: Logger,
    private readonly clock: () => Date,
  ) {}

  /** The witness verifier key (`<name>+<id>+<base64(0x04 || key)>`), published in /v1/meta and told at registration. */
  get verifierKey(): string {
    return this.cosigner.verifierKey;
  }

  /**
   * A member registered, naming its log's key (or none: its events slot keeps no tree). The first
   * key is pinned; a different one after a cosignature is a new log identity and flags the member
   * (registering again never clears a flag: only {@link clear} does).
   */
  async registered(pubkey: string, logKey: string | undefined): Promise<WitnessAnswer> {
    let record = await this.registry.witness(pubkey);
    if (logKey !== undefined) {
      record = await this.registry.pinLogKey(pubkey, logKey);
      if (record.logKey !== logKey && !record.flag) {
        await this.#flag(
          pubkey,
          'log-key-changed',
          `registered with the log key ${logKey} after checkpoints were cosigned under ${record.logKey}: a new log identity`,
        );
        record = await this.registry.witness(pubkey);
      }
    }
    return this.#answer(record, 'none');
  }

  /** Judge the checkpoint offered with a heartbeat (none: answer the state only) and cosign it when consistent. */
  async offer(pubkey: string, offer: WitnessOffer | undefined): Promise<WitnessAnswer> {
    const record = await this.registry.witness(pubkey);
    if (!offer) return this.#answer(record, 'none');
    const judged = judgeOffer(record, offer);
    switch (judged.outcome) {
      case 'cosign': {
        const timestamp = Math.floor(this.clock().getTime() / 1000);
        const line = this.cosigner.cosign(judged.text, timestamp);
        const root = judged.checkpoint.root.toString('base64');
        const previous = record?.cosigned ? { size: record.cosigned.size, root: record.cosigned.root } : null;
        const next = {
          origin: judged.checkpoint.origin,
          size: judged.checkpoint.size,
          root,
          note: addSignatureLine(offer.checkpoint, line),
          at: new Date(timestamp * 1000).toISOString(),
        };
        if (!(await this.registry.recordCosigned(pubkey, previous, judged.logKey, next))) {
          // Another replica (or a flag) moved the record meanwhile: nothing cosigned, the member offers again.
          this.metrics.witnessOffers.inc({ outcome: 'proof-needed' });
          return this.#answer(await this.registry.witness(pubkey), 'proof-needed', { message: 'the last checkpoint cosigned changed meanwhile; offer again' });
        }
        this.metrics.witnessOffers.inc({ outcome: 'cosigned' });
        this.logger.debug(
          { event: 'MeshCheckpointCosigned', pubkey, origin: next.origin, size: next.size, root },
          `cosigned the checkpoint of ${next.origin} at size ${next.size}`,
        );
        return { ...this.#answer({ logKey: judged.logKey, cosigned: next, flag: null }, 'cosigned'), cosignature: line };
      }
      case 'proof-needed':
      case 'malformed':
        this.metrics.witnessOffers.inc({ outcome: judged.outcome });
        return this.#answer(record, judged.outcome, { message: judged.message });
      case 'flagged':
        this.metrics.witnessOffers.inc({ outcome: 'refused' });
        this.metrics.witnessRefusals.inc({ reason: 'flagged' });
        return this.#answer(record, 'refused', { reason: 'flagged', message: judged.message });
      case 'refuse':
        this.metrics.witnessOffers.inc({ outcome: 'refused' });
        await this.#flag(pubkey, judged.reason, judged.message);
        return this.#answer(await this.registry.witness(pubkey), 'refused', { reason: judged.reason, message: judged.message });
    }
  }

  /** An operator clears a member's record: its flag, pinned key and last cosigned checkpoint (its next offer starts afresh). */
  async clear(pubkey: string, by: string): Promise<boolean> {
    const cleared = await this.registry.clearWitness(pubkey);
    if (cleared) {
      this.metrics.witnessFlagged.set(await this.registry.flaggedCount());
      this.logger.warn({ event: 'MeshWitnessCleared', pubkey, by }, `the witness record of mesh member ${pubkey} was cleared by an operator`);
    }
    return cleared;
  }

  async #flag(pubkey: string, reason: string, detail: string): Promise<void> {
    await this.registry.flagWitness(pubkey, { reason, detail, at: this.clock().toISOString() });
    this.metrics.witnessRefusals.inc({ reason });
    this.metrics.witnessFlagged.set(await this.registry.flaggedCount());
    this.logger.warn({ event: 'MeshWitnessRefused', pubkey, reason, detail }, `refused to cosign for mesh member ${pubkey} and flagged it: ${detail}`);
  }

  #answer(record: WitnessRecord | undefined | null, outcome: WitnessAnswer['outcome'], extra: { reason?: string; message?: string } = {}): WitnessAnswer {
    return {
      verifier_key: this.verifierKey,
      outcome,
      size: record?.cosigned?.size ?? null,
      root: record?.cosigned?.root ?? null,
      flagged: Boolean(record?.flag),
      ...extra,
    };
  }
}
