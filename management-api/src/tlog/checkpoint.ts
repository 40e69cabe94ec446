// C2SP tlog-checkpoint: the body a log signs — origin, decimal tree size, base64 root hash,
// optional extension lines — as a signed note's text.
import { HASH_SIZE } from './rfc6962.js';
import { isKeyName } from './signed-note.js';

/** A checkpoint's fields. */
export interface Checkpoint {
  /** The log's name: a schema-less URL, unique to this log. */
  origin: string;
  size: number;
  root: Buffer;
  extensions?: string[];
}

/** A checkpoint body that is not well formed; the message names the line. */
export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

/** The note text of a checkpoint (ending in a newline). */
export function formatCheckpoint(c: Checkpoint): string {
  if (!isKeyName(c.origin)) throw new CheckpointError(`origin ${JSON.stringify(c.origin)} is empty or holds a space or "+"`);
  if (!Number.isSafeInteger(c.size) || c.size < 0) throw new CheckpointError(`tree size ${c.size} is not a non-negative integer`);
  if (c.root.length !== HASH_SIZE) throw new CheckpointError(`root hash is ${c.root.length} bytes, not ${HASH_SIZE}`);
  const extensions = c.extensions ?? [];
  if (extensions.some((line) => line === '' || line.includes('\n'))) throw new CheckpointError('an extension line is empty or holds a newline');
  return [c.origin, String(c.size), c.root.toString('base64'), ...extensions].map((line) => `${line}\n`).join('');
}

/** Parse a checkpoint body (a note's text, already opened). */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw new CheckpointError('the checkpoint does not end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new CheckpointError(`a checkpoint has at least 3 lines (origin, size, root), this one ${lines.length}`);
  const [origin, size, root, ...extensions] = lines as [string, string, string, ...string[]];
  if (!origin) throw new CheckpointError('line 1 (origin) is empty');
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)))
    throw new CheckpointError(`line 2 (tree size) is not a decimal integer: ${JSON.stringify(size.slice(0, 40))}`);
  const hash = Buffer.from(root, 'base64');
  if (hash.length !== HASH_SIZE || hash.toString('base64') !== root) throw new CheckpointError(`line 3 (root hash) is not the base64 of ${HASH_SIZE} bytes`);
  if (extensions.some((line) => line === '')) throw new CheckpointError('an extension line is empty');
  return { origin, size: Number(size), root: hash, ...(extensions.length ? { extensions } : {}) };
}
