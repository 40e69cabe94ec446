// The dashboard's output blocks: only the last block changes, a line is never split across blocks, the oldest block goes first.
import t from 'tap';
import { appendChunk, BLOCK_CHUNKS, chunkCount, MAX_BLOCKS, type Blocks } from '../../management-api/ui/src/output-blocks.js';

interface Chunk {
  seq: number;
  text: string;
}

const line = (seq: number): Chunk => ({ seq, text: `line ${seq}\n` });

function fill(count: number, make: (seq: number) => Chunk = line, blockChunks?: number, maxBlocks?: number): Blocks<Chunk> {
  let blocks: Blocks<Chunk> = [];
  for (let seq = 1; seq <= count; seq++) blocks = appendChunk(blocks, make(seq), blockChunks, maxBlocks);
  return blocks;
}

t.test('chunks fill blocks of BLOCK_CHUNKS in order, and appending leaves every earlier block the same object', async (t) => {
  const blocks = fill(BLOCK_CHUNKS * 2 + 5);
  t.same(
    blocks.map((b) => b.length),
    [BLOCK_CHUNKS, BLOCK_CHUNKS, 5],
  );
  t.same(
    blocks.flat().map((c) => c.seq),
    Array.from({ length: BLOCK_CHUNKS * 2 + 5 }, (_, i) => i + 1),
    'every chunk once, in order',
  );
  const next = appendChunk(blocks, line(BLOCK_CHUNKS * 2 + 6));
  t.not(next, blocks, 'a new list (the page sees the change)');
  t.equal(next[0], blocks[0], 'the first block is the same object (its render is skipped)');
  t.equal(next[1], blocks[1]);
  t.not(next[2], blocks[2], 'only the last block is new');
  t.equal(blocks[2]!.length, 5, 'the previous list is left as it was');
  t.equal(next[2]!.length, 6);
});

t.test('a full block whose last line is unfinished takes the chunks that finish it, up to twice its size', async (t) => {
  const partial = (seq: number): Chunk => ({ seq, text: seq === 3 || seq === 4 ? `part ${seq} ` : `line ${seq}\n` });
  const blocks = fill(6, partial, 3);
  t.same(
    blocks.map((b) => b.map((c) => c.seq)),
    [[1, 2, 3, 4, 5], [6]],
    'chunks 4 and 5 join the full block: its line ends with 5',
  );
  const endless = fill(8, (seq) => ({ seq, text: 'no newline ' }), 3);
  t.same(
    endless.map((b) => b.length),
    [6, 2],
    'without a newline the block still closes at twice its size',
  );
});

t.test('past MAX_BLOCKS the oldest block is dropped whole', async (t) => {
  const blocks = fill(BLOCK_CHUNKS * MAX_BLOCKS + 1);
  t.equal(blocks.length, MAX_BLOCKS);
  t.equal(blocks[0]![0]!.seq, BLOCK_CHUNKS + 1, 'the first block went');
  t.equal(blocks.at(-1)![0]!.seq, BLOCK_CHUNKS * MAX_BLOCKS + 1, 'the newest chunk opened a block');
  t.equal(chunkCount(blocks), BLOCK_CHUNKS * (MAX_BLOCKS - 1) + 1);
  t.equal(chunkCount(fill(5, line, 2, 2)), 3, 'small sizes: [3,4] [5]');
  t.equal(chunkCount([]), 0);
});
