// A backup's index signed by the box's identity (`backup.sig`, beside `backup.json`): the index names
// every file's SHA-256, so a backup rewritten consistently (files and index together) no longer
// carries the box's signature, which only its identity key can make. Checked against a key the
// operator pins (`--signed-by`), it says the backup is the box's own, as made.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { decode, npubEncode } from 'nostr-tools/nip19';
import { finalizeEvent, type VerifiedEvent, verifyEvent } from 'nostr-tools/pure';
import { hexToBytes } from 'nostr-tools/utils';
import { INDEX_FILE, SIGNATURE_FILE } from './backup-format.js';
import { openRegularFile } from './regular-file.js';
/** NIP-78's application-data kind; the `d` tag says which application's statement it is. */
const KIND = 30078;
const TAG = 'agentbox-backup-index';
/** A signature is some 500 bytes: a larger file is not a signature. */
const MAX_SIGNATURE_BYTES = 64 * 1024;

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Sign the index in `dir` with the identity secret (hex) and write the signature file beside it; answers the signer's npub. */
export async function signIndex(dir: string, secretHex: string, createdAt: Date): Promise<string> {
  const index = await readFile(path.join(dir, INDEX_FILE));
  const event = finalizeEvent(
    {
      kind: KIND,
      created_at: Math.floor(createdAt.getTime() / 1000),
      tags: [
        ['d', TAG],
        ['x', sha256(index)],
      ],
      content: '',
    },
    hexToBytes(secretHex),
  );
  await writeFile(path.join(dir, SIGNATURE_FILE), `${JSON.stringify(event)}\n`, { mode: 0o644, flush: true });
  return npubEncode(event.pubkey);
}

/**
 * Who signed the index in `dir` (npub), `undefined` when it is unsigned; a problem naming the file when
 * the signature does not hold. `index` is the index's bytes as the caller read and parsed them.
 */
export async function indexSigner(dir: string, index: Buffer): Promise<{ signer?: string; problem?: string }> {
  const file = path.join(dir, SIGNATURE_FILE);
  const opened = await openRegularFile(file, MAX_SIGNATURE_BYTES).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!opened) return {};
  if ('refused' in opened) return { problem: `${file} is not a signature file: the backup was changed` };
  const { handle } = opened;
  let text: string;
  try {
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  let event: VerifiedEvent;
  try {
    event = JSON.parse(text) as VerifiedEvent;
  } catch {
    return { problem: `${file} is not valid JSON: the backup was changed` };
  }
  const tag = (name: string) => (Array.isArray(event?.tags) ? event.tags.find((t) => Array.isArray(t) && t[0] === name)?.[1] : undefined);
  if (event?.kind !== KIND || tag('d') !== TAG) return { problem: `${file} is not a backup index signature: the backup was changed` };
  if (!verifyEvent(event)) return { problem: `${file} does not verify: its signature is not its key's, the backup was changed` };
  if (tag('x') !== sha256(index))
    return { problem: `${file} signs another index than ${path.join(dir, INDEX_FILE)}: the index was changed after the box signed it` };
  return { signer: npubEncode(event.pubkey) };
}

/** The npub of a key given as npub1… or 64 hex digits; undefined when it is neither. */
export function asNpub(key: string): string | undefined {
  const value = key.trim();
  if (/^[0-9a-f]{64}$/i.test(value)) return npubEncode(value.toLowerCase());
  try {
    const decoded = decode(value as `npub1${string}`);
    return decoded.type === 'npub' ? npubEncode(decoded.data) : undefined;
  } catch {
    return undefined;
  }
}
