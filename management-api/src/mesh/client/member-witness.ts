// The member's side of witnessing: offer the latest signed checkpoint of its event log with a
// heartbeat (with a consistency proof from the last size the host cosigned), check the host's
// cosignature with the witness key learned at registration, and keep every one it receives.
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { LogCheckpoint, LogConsistencyProof, LogKey } from '../../adapters/events/events-adapter.js';
import { addSignatureLine, parseCosignatureVerifier, verifyCosignature, type CosignatureVerifier } from '../../tlog/cosignature.js';

/** The file of cosigned checkpoints, beside the log's own checkpoints (`<events>/tlog/`). */
export const COSIGNATURES_FILE = 'cosignatures.jsonl';

/** What the member reads of its log: the events slot's checkpoint, proofs and key (undefined: the slot keeps no tree, is off or not usable). */
export interface WitnessedLogSource {
  checkpoint(): Promise<LogCheckpoint>;
  consistencyProof(from: number, to: number): Promise<LogConsistencyProof>;
  logKey(): Promise<LogKey>;
}

/** One line of `cosignatures.jsonl`. */
export interface CosignatureRecord {
  /** When the member received it (ISO). */
  time: string;
  /** The witness's key name and verifier key. */
  witness: string;
  witnessKey: string;
  /** The cosignature's own timestamp (ISO). */
  cosignedAt: string;
  origin: string;
  size: number;
  root: string;
  /** The member's checkpoint with the witness's cosignature line: what `events verify --against … --witness-key` takes. */
  note: string;
}

/** What /health shows of the member's witnessing. */
export interface MemberWitnessStatus {
  /** The host's witness verifier key, from the registration answer. */
  hostKey: string | null;
  /** The last size and root the host says it cosigned. */
  size: number | null;
  root: string | null;
  /** The outcome of the last offer (cosigned, proof-needed, malformed, refused), and why. */
  lastOutcome: string | null;
  lastMessage: string | null;
  lastCosignedAt: string | null;
  flagged: boolean;
}

interface Offered {
  note: string;
  size: number;
  root: string;
  origin: string;
}

/** The member's witnessing, driven by the federation client. */
export class MemberWitness {
  #verifier: CosignatureVerifier | undefined;
  #offered: Offered | undefined;
  #status: MemberWitnessStatus = { hostKey: null, size: null, root: null, lastOutcome: null, lastMessage: null, lastCosignedAt: null, flagged: false };

  constructor(
    private readonly options: {
      /** Asked at each call: the log, or undefined when the events slot keeps none or cannot answer now. */
      source: () => WitnessedLogSource | undefined;
      /** The events directory (`<state>/events`): cosignatures go to its `tlog/cosignatures.jsonl`. */
      eventsDir: string;
      logger: Logger;
      clock: () => Date;
    },
  ) {}

  status(): MemberWitnessStatus {
    return { ...this.#status };
  }

  /** The registration body's part: the log's verifier key, for the host to pin. */
  async registration(): Promise<{ event_log?: { verifier_key: string } }> {
    const key = await this.#ask((s) => s.logKey());
    return key && typeof key.verifierKey === 'string' ? { event_log: { verifier_key: key.verifierKey } } : {};
  }

  /** The registration answer: the host's witness key (a host without one, or with a key that cannot be parsed, witnesses nothing). */
  registered(answer: unknown): void {
    this.#verifier = undefined;
    this.#status.hostKey = null;
    const witness = asWitnessAnswer(answer);
    if (!witness) return;
    try {
      this.#verifier = parseCosignatureVerifier(String(witness['verifier_key']));
      this.#status.hostKey = this.#verifier.verifierKey;
    } catch (err) {
      this.options.logger.warn(
        { event: 'MeshWitnessKeyUnusable', reason: (err as Error).message },
        `the mesh host's witness key cannot be used: ${(err as Error).message}; no checkpoint is offered`,
      );
    }
    this.#learn(witness);
  }

  /**
   * The heartbeat body's part: the latest checkpoint when it is not the one the host cosigned last,
   * with a consistency proof from that size when the log grew since. Nothing while the host knows
   * no witness key, the member is flagged, or the log keeps no tree.
   */
  async offer(): Promise<{ witness?: Record<string, unknown> }> {
    this.#offered = undefined;
    if (!this.#verifier || this.#status.flagged) return {};
    const latest = await this.#ask((s) => s.checkpoint());
    if (!latest || typeof latest.note !== 'string') return {};
    const hostSize = this.#status.size;
    if (hostSize === latest.size && this.#status.root === latest.root) return {};
    let proof: LogConsistencyProof | undefined;
    if (hostSize !== null && hostSize > 0 && latest.size > hostSize) proof = await this.#ask((s) => s.consistencyProof(hostSize, latest.size));
    const key = await this.#ask((s) => s.logKey());
    this.#offered = { note: latest.note, size: latest.size, root: latest.root, origin: latest.origin };
    return {
      witness: {
        checkpoint: latest.note,
        ...(key && typeof key.verifierKey === 'string' ? { verifier_key: key.verifierKey } : {}),
        ...(proof ? { proof: { from: proof.from, path: proof.path } } : {}),
      },
    };
  }

  /** The heartbeat answer: check a cosignature of what was offered with the host's key and keep it. */
  async answered(answer: unknown): Promise<void> {
    const witness = asWitnessAnswer(answer);
    const offered = this.#offered;
    this.#offered = undefined;
    if (!witness) return;
    this.#learn(witness);
    if (!offered) return;
    this.#status.lastOutcome = typeof witness['outcome'] === 'string' ? witness['outcome'] : null;
    this.#status.lastMessage = typeof witness['message'] === 'string' ? witness['message'] : null;
    if (witness['outcome'] === 'refused') {
      this.options.logger.error(
        { event: 'MeshCheckpointRefused', reason: witness['reason'], detail: witness['message'], size: offered.size },
        `the mesh host refused to cosign the event log checkpoint at size ${offered.size}: ${String(witness['message'])}`,
      );
      return;
    }
    const line = witness['cosignature'];
    if (witness['outcome'] !== 'cosigned' || typeof line !== 'string' || !this.#verifier) return;
    let note: string;
    let cosignedAt: number;
    try {
      note = addSignatureLine(offered.note, line);
      // A cosignature dated more than 5 minutes ahead of this box's clock is refused.
      cosignedAt = verifyCosignature(note, this.#verifier, Math.floor(this.options.clock().getTime() / 1000) + 300).timestamp;
    } catch (err) {
      this.options.logger.warn(
        { event: 'MeshCosignatureInvalid', reason: (err as Error).message },
        `the mesh host's cosignature does not verify with its witness key: ${(err as Error).message}; not kept`,
      );
      return;
    }
    const record: CosignatureRecord = {
      time: this.options.clock().toISOString(),
      witness: this.#verifier.name,
      witnessKey: this.#verifier.verifierKey,
      cosignedAt: new Date(cosignedAt * 1000).toISOString(),
      origin: offered.origin,
      size: offered.size,
      root: offered.root,
      note,
    };
    await this.#keep(record);
    this.#status.lastCosignedAt = record.cosignedAt;
    this.options.logger.debug(
      { event: 'MeshCheckpointCosigned', witness: record.witness, size: record.size },
      `the mesh host cosigned the event log checkpoint at size ${record.size}`,
    );
  }

  #learn(witness: Record<string, unknown>): void {
    const size = witness['size'];
    const root = witness['root'];
    this.#status.size = typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : null;
    this.#status.root = typeof root === 'string' ? root : null;
    this.#status.flagged = witness['flagged'] === true;
  }

  async #keep(record: CosignatureRecord): Promise<void> {
    const file = path.join(this.options.eventsDir, 'tlog', COSIGNATURES_FILE);
    try {
      const handle = await open(file, 'a', 0o644);
      try {
        await handle.appendFile(`${JSON.stringify(record)}\n`);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    } catch (err) {
      this.options.logger.warn({ event: 'MeshCosignatureNotKept', file, err }, `could not append the cosignature to ${file}: ${(err as Error).message}`);
    }
  }

  /** Ask the log; a slot that keeps no tree, is off or fails answers undefined (witnessing is never a reason to fail a heartbeat). */
  async #ask<T>(fn: (source: WitnessedLogSource) => Promise<T>): Promise<T | undefined> {
    const source = this.options.source();
    if (!source) return undefined;
    return fn(source).catch(() => undefined);
  }
}

function asWitnessAnswer(answer: unknown): Record<string, unknown> | undefined {
  const w = (answer as Record<string, unknown> | undefined)?.['witness'];
  return w && typeof w === 'object' && typeof (w as Record<string, unknown>)['verifier_key'] === 'string' ? (w as Record<string, unknown>) : undefined;
}
