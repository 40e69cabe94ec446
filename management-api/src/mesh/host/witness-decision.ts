// The witness's judgement of a checkpoint a member offers, against the last one cosigned for it:
// pure (no I/O, no clock), O(log n) — one signature and at most one consistency proof checked.
import { parseCheckpoint, type Checkpoint } from '../../tlog/checkpoint.js';
import { ProofError, verifyConsistency } from '../../tlog/proof-verify.js';
import { HASH_SIZE } from '../../tlog/rfc6962.js';
import { openNote, parseVerifierKey } from '../../tlog/signed-note.js';
import type { WitnessRecord } from './registry.js';

/** Why a checkpoint is refused and its member flagged (the values of the refusals metric's `reason`). */
export const FLAGGING_REASONS = ['log-key-changed', 'bad-signature', 'origin-changed', 'shrunk', 'fork', 'inconsistent'] as const;
/** One of {@link FLAGGING_REASONS}. */
export type FlaggingReason = (typeof FLAGGING_REASONS)[number];

/** What a member offers with a heartbeat: its latest signed checkpoint and, past the last size cosigned, a consistency proof from it. */
export interface WitnessOffer {
  /** The signed note, as GET /v1/events/checkpoint serves it. */
  checkpoint: string;
  /** The verifier key of the member's log (pinned when the host holds none). */
  verifierKey?: string;
  /** RFC 6962 consistency proof from `from` (the last size cosigned) to the offered size; hashes base64. */
  proof?: { from: number; path: string[] };
}

/** The judgement. Only `refuse` flags the member; `proof-needed` and `malformed` leave it as it is. */
export type WitnessJudgement =
  | { outcome: 'cosign'; checkpoint: Checkpoint; text: string; logKey: string }
  | { outcome: 'proof-needed'; from: number; message: string }
  | { outcome: 'malformed'; message: string }
  | { outcome: 'flagged'; message: string }
  | { outcome: 'refuse'; reason: FlaggingReason; message: string };

/** Longest consistency proof taken: 2·64 hashes covers any tree a 64-bit size allows. */
export const MAX_PROOF_HASHES = 128;

/**
 * Judge `offer` given what the host holds of the member (`record`, undefined when nothing):
 * a flagged member is refused until an operator clears it; the note must verify with the pinned
 * log key (a different key after a cosignature is a new log identity: refused); its origin must
 * stay the same; then the size may not shrink, the same size must give the same root, and a
 * larger size must come with a consistency proof from the last size cosigned that verifies.
 */
export function judgeOffer(record: WitnessRecord | undefined, offer: WitnessOffer): WitnessJudgement {
  if (record?.flag)
    return {
      outcome: 'flagged',
      message: `this member's log is flagged (${record.flag.reason}: ${record.flag.detail}) since ${record.flag.at}; an operator must clear it`,
    };
  const cosigned = record?.cosigned ?? null;
  const pinned = record?.logKey ?? null;
  if (pinned && offer.verifierKey && offer.verifierKey !== pinned && cosigned) {
    return {
      outcome: 'refuse',
      reason: 'log-key-changed',
      message: `the log's verifier key changed from ${pinned} to ${offer.verifierKey} after checkpoints were cosigned under the first: a new log identity`,
    };
  }
  const logKey = cosigned ? pinned : (offer.verifierKey ?? pinned);
  if (!logKey)
    return {
      outcome: 'malformed',
      message: "no verifier key for this member's log: send event_log.verifier_key at registration or verifier_key with the offer",
    };
  let verifier: ReturnType<typeof parseVerifierKey>;
  try {
    verifier = parseVerifierKey(logKey);
  } catch (err) {
    return { outcome: 'malformed', message: `the log's verifier key cannot be used: ${(err as Error).message}` };
  }
  let text: string;
  try {
    text = openNote(offer.checkpoint, verifier);
  } catch (err) {
    return { outcome: 'refuse', reason: 'bad-signature', message: `the checkpoint does not verify with the log's key: ${(err as Error).message}` };
  }
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(text);
  } catch (err) {
    return { outcome: 'malformed', message: `the signed checkpoint is not well formed: ${(err as Error).message}` };
  }
  if (checkpoint.origin !== verifier.name)
    return { outcome: 'refuse', reason: 'origin-changed', message: `the checkpoint's origin ${checkpoint.origin} is not the log key's ${verifier.name}` };
  if (!cosigned) return { outcome: 'cosign', checkpoint, text, logKey };
  if (checkpoint.origin !== cosigned.origin)
    return {
      outcome: 'refuse',
      reason: 'origin-changed',
      message: `the checkpoint is for the log ${checkpoint.origin}, the last one cosigned for ${cosigned.origin}`,
    };
  const root = checkpoint.root.toString('base64');
  if (checkpoint.size < cosigned.size)
    return {
      outcome: 'refuse',
      reason: 'shrunk',
      message: `the log shrank: size ${checkpoint.size}, but ${cosigned.size} entries were cosigned on ${cosigned.at}`,
    };
  if (checkpoint.size === cosigned.size) {
    if (root === cosigned.root) return { outcome: 'cosign', checkpoint, text, logKey };
    return {
      outcome: 'refuse',
      reason: 'fork',
      message: `two roots for size ${checkpoint.size}: ${root}, and ${cosigned.root} cosigned on ${cosigned.at}; the log was rewritten`,
    };
  }
  if (cosigned.size === 0) return { outcome: 'cosign', checkpoint, text, logKey };
  if (!offer.proof || offer.proof.from !== cosigned.size)
    return {
      outcome: 'proof-needed',
      from: cosigned.size,
      message: `send a consistency proof from size ${cosigned.size} (the last one cosigned) to ${checkpoint.size}`,
    };
  const path = decodeHashes(offer.proof.path);
  if (!path) return { outcome: 'malformed', message: `the consistency proof is not a list of at most ${MAX_PROOF_HASHES} base64 hashes of ${HASH_SIZE} bytes` };
  try {
    verifyConsistency(cosigned.size, checkpoint.size, Buffer.from(cosigned.root, 'base64'), checkpoint.root, path);
  } catch (err) {
    if (!(err instanceof ProofError)) throw err;
    return {
      outcome: 'refuse',
      reason: 'inconsistent',
      message: `the checkpoint of size ${checkpoint.size} is not consistent with size ${cosigned.size} cosigned on ${cosigned.at}: ${err.message}`,
    };
  }
  return { outcome: 'cosign', checkpoint, text, logKey };
}

function decodeHashes(path: readonly string[]): Buffer[] | undefined {
  if (path.length > MAX_PROOF_HASHES) return undefined;
  const hashes = path.map((h) => Buffer.from(h, 'base64'));
  return hashes.every((h, i) => h.length === HASH_SIZE && h.toString('base64') === path[i]) ? hashes : undefined;
}
