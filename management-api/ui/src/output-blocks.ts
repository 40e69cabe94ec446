// An agent's output in the page as blocks of chunks: a new chunk changes only the last block, so a long log costs no more per line than a short one.

/** The part of an output chunk the blocks need. */
export interface Numbered {
  seq: number;
  text: string;
}

/**
 * The output in order, split into blocks. Every block but the last is never changed again (the
 * same array object), which lets the page skip re-rendering and re-laying out all of them.
 */
export type Blocks<T extends Numbered> = readonly (readonly T[])[];

/** Chunks per block: a new chunk re-renders at most this many (and one block's layout). */
export const BLOCK_CHUNKS = 100;
/** Blocks kept: the page holds at most BLOCK_CHUNKS × MAX_BLOCKS chunks; the oldest block goes first. */
export const MAX_BLOCKS = 20;

/**
 * `blocks` with `chunk` appended: to the last block while it has room, else to a new block; past
 * MAX_BLOCKS the oldest block is dropped whole. Earlier blocks are returned as the same objects.
 * A block is shown as a block of lines, so a full block still takes the chunks that finish its
 * last line (up to twice its size) rather than split that line in two.
 */
export function appendChunk<T extends Numbered>(blocks: Blocks<T>, chunk: T, blockChunks = BLOCK_CHUNKS, maxBlocks = MAX_BLOCKS): Blocks<T> {
  const last = blocks.at(-1);
  const lineOpen = last !== undefined && !last.at(-1)!.text.endsWith('\n');
  if (last && (last.length < blockChunks || (lineOpen && last.length < 2 * blockChunks))) return [...blocks.slice(0, -1), [...last, chunk]];
  const grown = [...blocks, [chunk]];
  return grown.length > maxBlocks ? grown.slice(grown.length - maxBlocks) : grown;
}

/** Number of chunks held in `blocks`. */
export function chunkCount(blocks: Blocks<Numbered>): number {
  return blocks.reduce((n, b) => n + b.length, 0);
}
