// Opening an event log after a clean stop or a crash: drop a torn tail, find the chain head.
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { syncDirectory } from '../../durable-fs.js';
import { chainBreak, decodeLine, EMPTY_HEAD, MalformedLineError, type ChainHead } from './hash-chain.js';
import { listSegments, readFirstLine, scanTail, segmentName } from './log-files.js';

/** A segment as readers see it: where it starts and how many of its bytes are durable. */
export interface Segment {
  number: number;
  path: string;
  /** Sequence number and time of its first event (absent while it holds none). */
  firstSeq?: number;
  firstTime?: string;
  /** Bytes that hold complete, durable lines. */
  end: number;
}

/** The log cannot be opened because a line is not what the chain says it must be. */
export class LogCorruptError extends Error {
  override name = 'LogCorruptError';
}

/** What opening found: every segment, the active (last) one opened for appending, and the chain head. */
export interface RecoveredLog {
  segments: Segment[];
  handle: FileHandle;
  head: ChainHead;
}

/**
 * Open the log in `dir` (created if absent). Bytes after the last newline of the last segment
 * were never acknowledged (an append's promise resolves only after its fsync, and a batch is one
 * write), so they are cut off. The head comes from the last complete line, whose own hash is
 * checked; the full chain is checked by `verifyEventLog`, not at every start.
 */
export async function recoverLog(dir: string, prefix: string, logger?: Logger): Promise<RecoveredLog> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const files = await listSegments(dir, prefix);
  if (!files.length) {
    const file = path.join(dir, segmentName(prefix, 1));
    const handle = await open(file, 'a+', 0o600);
    await syncDirectory(dir);
    return { segments: [{ number: 1, path: file, end: 0 }], handle, head: { ...EMPTY_HEAD } };
  }
  const segments: Segment[] = [];
  for (const f of files.slice(0, -1)) segments.push({ ...f, end: (await stat(f.path)).size, ...(await firstOf(f.path)) });
  const last = files[files.length - 1]!;
  const handle = await open(last.path, 'a+', 0o600);
  try {
    const size = (await handle.stat()).size;
    const tail = await scanTail(handle, size);
    if (tail.end < size) {
      await handle.truncate(tail.end);
      await handle.datasync();
      logger?.warn(
        { event: 'EventLogTornTailDiscarded', file: last.path, bytes: size - tail.end },
        'discarded an unacknowledged partial line at the end of the event log',
      );
    }
    segments.push({ ...last, end: tail.end, ...(await firstOf(last.path)) });
    let lastLine = tail.lastLine;
    // A freshly rotated segment is empty: the head is the last line of the one before.
    for (let i = segments.length - 2; lastLine === undefined && i >= 0; i--) {
      const before = segments[i]!;
      const h = await open(before.path, 'r');
      try {
        lastLine = (await scanTail(h, before.end)).lastLine;
      } finally {
        await h.close();
      }
    }
    return { segments, handle, head: lastLine === undefined ? { ...EMPTY_HEAD } : headOf(lastLine, last.path) };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

async function firstOf(file: string): Promise<Pick<Segment, 'firstSeq' | 'firstTime'>> {
  const line = await readFirstLine(file);
  if (line === undefined) return {};
  try {
    const e = decodeLine(line);
    return { firstSeq: e.seq, firstTime: e.time };
  } catch (err) {
    throw new LogCorruptError(`${file}: first line is malformed (${(err as Error).message}); run the log verification`);
  }
}

function headOf(line: string, file: string): ChainHead {
  try {
    const e = decodeLine(line);
    // The line's own hash must hold, or appends would chain onto a tampered line.
    const reason = chainBreak({ seq: e.seq - 1, hash: e.prev, time: '' }, e);
    if (reason) throw new LogCorruptError(`${file}: last line (seq ${e.seq}): ${reason}`);
    return { seq: e.seq, hash: e.hash, time: e.time };
  } catch (err) {
    if (err instanceof MalformedLineError) throw new LogCorruptError(`${file}: last line is malformed (${err.message}); run the log verification`);
    throw err;
  }
}
