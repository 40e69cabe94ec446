// Bytes, hashes and base64 with what both Node (≥ 20) and browsers have globally: TextEncoder, Web Crypto, btoa.

const encoder = new TextEncoder();

/** The UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** sha256 of `bytes`, lower-case hex. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/** Standard base64 of `bytes` (btoa takes a binary string; built in slices to stay clear of argument limits). */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * `segment` (one name of a file path) percent-encoded for a URL as its bytes on disk: a name the
 * box lists with a byte that is not UTF-8 holds it as a lone surrogate U+DC80–U+DCFF (U+DC00 plus
 * the byte), which encodeURIComponent refuses; here it becomes that byte, `%XX`, and everything
 * else is encoded as encodeURIComponent encodes it. The box decodes such a files path as bytes.
 */
export function encodePathSegment(segment: string): string {
  let out = '';
  for (const ch of segment) {
    const cp = ch.codePointAt(0)!;
    out += cp >= 0xdc80 && cp <= 0xdcff ? `%${(cp - 0xdc00).toString(16).toUpperCase()}` : encodeURIComponent(ch);
  }
  return out;
}
