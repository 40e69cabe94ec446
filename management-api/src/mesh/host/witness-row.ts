// The witness columns of a member listing and their mapping to a WitnessRecord, shared by the SQLite and Postgres registries.
import type { WitnessRecord } from './registry.js';

/** The witness columns, prefixed for the member listing's join. */
export const WITNESS_COLUMNS =
  'w.pubkey AS w_pubkey, w.log_key AS w_log_key, w.origin AS w_origin, w.size AS w_size, w.root AS w_root, w.note AS w_note, w.cosigned_at AS w_cosigned_at, w.flag_reason AS w_flag_reason, w.flag_detail AS w_flag_detail, w.flagged_at AS w_flagged_at';

/**
 * A row of those columns. `Size` and `Time` are what the driver answers: SQLite gives numbers
 * (milliseconds for times); node-postgres gives a BIGINT as a string and a TIMESTAMPTZ as a Date.
 */
export interface WitnessRow<Size, Time> {
  w_pubkey: string | null;
  w_log_key: string | null;
  w_origin: string | null;
  w_size: Size | null;
  w_root: string | null;
  w_note: string | null;
  w_cosigned_at: Time | null;
  w_flag_reason: string | null;
  w_flag_detail: string | null;
  w_flagged_at: Time | null;
}

/** How a driver's values become a record's: a size as a number, a time as an ISO string. */
export interface WitnessValues<Size, Time> {
  size(value: Size): number;
  iso(value: Time): string;
}

/** The member's witness record from its joined row; null when the witness has no row for the key. */
export function toWitness<Size, Time>(r: Partial<WitnessRow<Size, Time>>, values: WitnessValues<Size, Time>): WitnessRecord | null {
  if (!r.w_pubkey) return null;
  return {
    logKey: r.w_log_key ?? null,
    cosigned:
      r.w_size === null || r.w_size === undefined
        ? null
        : { origin: r.w_origin!, size: values.size(r.w_size), root: r.w_root!, note: r.w_note!, at: values.iso(r.w_cosigned_at!) },
    flag: r.w_flag_reason ? { reason: r.w_flag_reason, detail: r.w_flag_detail ?? '', at: values.iso(r.w_flagged_at!) } : null,
  };
}
