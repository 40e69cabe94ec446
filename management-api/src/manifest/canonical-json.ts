// Canonical JSON (object keys sorted, no whitespace): the byte form the manifest hash is taken
// over. Nix's builtins.toJSON produces the same form, so both sides compute the same hash.
import { createHash } from 'node:crypto';

/** Serialise `value` with object keys in sorted order at every depth. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

/** Hex sha256 of the canonical JSON of `value`. */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
