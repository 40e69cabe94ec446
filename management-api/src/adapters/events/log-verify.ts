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
  return verifyFiles(
    files.map((f) => f.path),
    { ...EMPTY_HEAD },
  );
}

/**
 * Verify one segment file on its own (a copy, a backup): its chain is checked from its first
 * line, whose own hash is checked but whose link to the segment before cannot be. A torn tail
 * (no final newline) is reported as for the last segment of a log.
 */
export async function verifyEventLogFile(file: string): Promise<VerifyReport> {
  return verifyFiles([file], undefined);
}

/** Verify `paths` in order as one chain, starting after `start` (undefined: after the first line's own prev and seq). */
async function verifyFiles(paths: readonly string[], start: ChainHead | undefined): Promise<VerifyReport> {
  let head = start;
  let events = 0;
  const report = (firstBad?: BadLine, incompleteTailBytes?: number): VerifyReport => ({
    ok: firstBad === undefined,
    files: paths.length,
    events,
    head: head ?? { ...EMPTY_HEAD },
    ...(firstBad ? { firstBad } : {}),
    ...(incompleteTailBytes !== undefined ? { incompleteTailBytes } : {}),
  });
  for (let i = 0; i < paths.length; i++) {
    const file = paths[i]!;
    const name = path.basename(file);
    const isLast = i === paths.length - 1;
    const size = (await stat(file)).size;
    let lineNo = 0;
    let consumed = 0;
    const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    try {
      for await (const text of lines) {
        lineNo += 1;
        consumed += Buffer.byteLength(text) + 1;
        // readline also yields a final line that has no newline: a torn tail, allowed only at the very end.
        if (consumed > size) {
          if (isLast) return report(undefined, Buffer.byteLength(text));
          return report({ file: name, line: lineNo, reason: 'incomplete line (no newline) inside the log' });
        }
        let e: ReturnType<typeof decodeLine>;
        try {
          e = decodeLine(text);
        } catch (err) {
          return report({ file: name, line: lineNo, reason: `malformed line: ${(err as Error).message}` });
        }
        // A file checked alone starts where its first line says it does.
        head ??= { seq: e.seq - 1, hash: e.prev, time: '' };
        const reason = chainBreak(head, e);
        if (reason) return report({ file: name, line: lineNo, seq: e.seq, reason });
        head = { seq: e.seq, hash: e.hash, time: e.time };
        events += 1;
      }
    } finally {
      lines.close();
    }
  }
  return report();
}
