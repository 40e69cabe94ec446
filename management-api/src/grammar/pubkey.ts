// A Nostr public key as the manifest and NIP-98 callers may write it (64 hex characters or an npub): rule E037 and the mesh read keys alike.
import { decode } from 'nostr-tools/nip19';

/**
 * A public key written as 64 hex characters or as an npub, as hex; undefined when it is neither
 * (a bad npub checksum included). The manifest allows both spellings.
 */
export function pubkeyToHex(text: string): string | undefined {
  if (/^[0-9a-f]{64}$/.test(text)) return text;
  if (!text.startsWith('npub1')) return undefined;
  try {
    const decoded = decode(text as `npub1${string}`);
    return decoded.type === 'npub' ? decoded.data : undefined;
  } catch {
    return undefined;
  }
}
