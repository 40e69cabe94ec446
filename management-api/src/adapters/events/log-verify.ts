// Verification of an event log's hash chain, naming the first line that breaks it.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { chainBreak, decodeLine, EMPTY_HEAD, type ChainHead } from './hash-chain.js';
import { listSegments } from './log-files.js';

/** The first line that does not belong to the chain. */
export interface BadLine {
  /** File name within the log directory. */
  file: string;
  /** 1-based line number within that file. */
  line: number;
  /** The seq the line claims, when it parses. */
  seq?: number;
  reason: string;
}

/** What verification found. */
export interface VerifyReport {
  ok: boolean;
  files: number;
  /** Lines that verified, up to the first bad one. */
  events: number;
  head: ChainHead;
  firstBad?: BadLine;
  /** Bytes after the last newline: an append cut short by a crash (never acknowledged; discarded on the next open). */
  incompleteTailBytes?: number;
}

/**
 * Recompute the chain of every segment of `prefix` in `dir`, in order. Detects edited lines (hash
 * mismatch), removed, inserted or reordered lines and files (prev or seq mismatch) and malformed
 * lines. Removing lines from the very end leaves a shorter valid chain; compare the head with a
 * recorded one to detect that.
 */
export async function verifyEventLog(dir: string, prefix = 'events'): Promise<VerifyReport> {
  const files = await listSegments(dir, prefix);
  let head: ChainHead = { ...EMPTY_HEAD };
  let events = 0;
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    const name = path.basename(file.path);
    const isLast = i === files.length - 1;
    const size = (await stat(file.path)).size;
    let lineNo = 0;
    let consumed = 0;
    const lines = createInterface({ input: createReadStream(file.path, { encoding: 'utf8' }), crlfDelay: Infinity });
    try {
      for await (const text of lines) {
        lineNo += 1;
        consumed += Buffer.byteLength(text) + 1;
        // readline also yields a final line that has no newline: a torn tail, allowed only at the very end.
        if (consumed > size) {
          if (isLast) return { ok: true, files: files.length, events, head, incompleteTailBytes: Buffer.byteLength(text) };
          return bad(files.length, events, head, { file: name, line: lineNo, reason: 'incomplete line (no newline) inside the log' });
        }
        let e;
        try {
          e = decodeLine(text);
        } catch (err) {
          return bad(files.length, events, head, { file: name, line: lineNo, reason: `malformed line: ${(err as Error).message}` });
        }
        const reason = chainBreak(head, e);
        if (reason) return bad(files.length, events, head, { file: name, line: lineNo, seq: e.seq, reason });
        head = { seq: e.seq, hash: e.hash, time: e.time };
        events += 1;
      }
    } finally {
      lines.close();
    }
  }
  return { ok: true, files: files.length, events, head };
}

function bad(files: number, events: number, head: ChainHead, firstBad: BadLine): VerifyReport {
  return { ok: false, files, events, head, firstBad };
}
