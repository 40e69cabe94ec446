// The lines of a log's segments as the exact bytes stored (no decoding): what the Merkle tree's
// leaves are hashed over, read in large chunks.
import { open } from 'node:fs/promises';

/** One stored line, without its newline, and its 0-based position in the whole log. */
export interface StoredLine {
  index: number;
  bytes: Buffer;
}

/** Where a segment's lines start in the log and how many of its bytes are complete lines. */
export interface LineSource {
  path: string;
  /** Index of the segment's first line in the log (its first seq − 1). */
  firstIndex: number;
  /** Bytes to read (complete lines only); undefined: the whole file. */
  end?: number;
}

const CHUNK = 1024 * 1024;

/** The lines of `sources` in order, from log index `from` on. A final piece without a newline is not a line. */
export async function* storedLines(sources: readonly LineSource[], from = 0): AsyncGenerator<StoredLine> {
  for (let s = 0; s < sources.length; s++) {
    const source = sources[s]!;
    const next = sources[s + 1];
    // A segment wholly before `from` is skipped unread.
    if (next && next.firstIndex <= from) continue;
    const handle = await open(source.path, 'r');
    try {
      const end = source.end ?? (await handle.stat()).size;
      let index = source.firstIndex;
      let carry: Buffer = Buffer.alloc(0);
      for (let position = 0; position < end; ) {
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, end - position));
        const { bytesRead } = await handle.read(buf, 0, buf.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
        let start = 0;
        for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
          if (index >= from) yield { index, bytes: data.subarray(start, nl) };
          index += 1;
          start = nl + 1;
        }
        carry = Buffer.from(data.subarray(start));
      }
    } finally {
      await handle.close();
    }
  }
}
