// The built-in text embedder: signed feature hashing of words and character trigrams (lexical, not semantic).
import { AdapterInputError } from '../../adapter-errors.js';

/** Name and version of the embedding; a change of either makes stored text vectors incomparable. */
export const TEXT_EMBEDDER = 'agentbox-hash-v1';

// Words weigh more than trigrams: a shared word is stronger evidence than a shared fragment,
// while trigrams still match inflections ("deploy"/"deployed") and typos.
const WORD_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.5;

/** The features of `text` with their counts: `w:<word>` unigrams and `c:<trigram>` of each `#word#`. */
export function textFeatures(text: string): Map<string, number> {
  const features = new Map<string, number>();
  const add = (key: string): void => {
    features.set(key, (features.get(key) ?? 0) + 1);
  };
  // NFKC folds compatibility forms (full-width letters, ligatures) so they hash like their plain forms.
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    add(`w:${word}`);
    const chars = Array.from(`#${word}#`);
    for (let i = 0; i + 3 <= chars.length; i++) add(`c:${chars.slice(i, i + 3).join('')}`);
  }
  return features;
}

/** 32-bit FNV-1a over the UTF-16 code units: fast, dependency-free and stable across platforms. */
export function fnv1a(key: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// MurmurHash3's finaliser spreads FNV's weak low bits before the modulo.
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Embed `text` into `dimension` buckets, L2-normalised.
 *
 * Each feature lands in bucket `mix(fnv1a(f)) mod dimension` with a sign from an independent hash,
 * so colliding features cancel on average instead of piling up (the "hashing trick"); term counts
 * are damped with `1 + ln(count)` so a repeated word does not drown the rest. The result is
 * deterministic: the same text always gives the same vector, on every machine.
 *
 * Limits: it measures shared words and spellings, not meaning — "car" and "automobile" are unrelated
 * to it. Text with no letters or digits has no features and is refused.
 */
export function embedText(text: string, dimension: number): Float32Array {
  const features = textFeatures(text);
  if (features.size === 0) throw new AdapterInputError('text has no letters or digits to embed; pass a vector instead');
  const out = new Float32Array(dimension);
  for (const [feature, count] of features) {
    const bucket = mix(fnv1a(feature)) % dimension;
    const sign = (mix(fnv1a(feature, 0x9747b28c)) & 1) === 0 ? 1 : -1;
    const weight = feature.startsWith('w:') ? WORD_WEIGHT : TRIGRAM_WEIGHT;
    out[bucket]! += sign * weight * (1 + Math.log(count));
  }
  let sum = 0;
  for (let i = 0; i < dimension; i++) sum += out[i]! * out[i]!;
  // Every feature could cancel with another in a tiny dimension; the fallback keeps the vector non-zero.
  if (sum === 0) {
    out[mix(fnv1a(text)) % dimension] = 1;
    return out;
  }
  const norm = Math.sqrt(sum);
  for (let i = 0; i < dimension; i++) out[i] = out[i]! / norm;
  return out;
}
