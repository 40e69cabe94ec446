// Sequential reading of a spool from a byte position: the forwarder's view of the log.
import { open } from 'node:fs/promises';
import type { StoredEvent } from './events-adapter.js';
import { decodeLine, toStored } from './hash-chain.js';
import type { Segment } from './log-recovery.js';

/** Where the next unread line starts. */
export interface SpoolPosition {
  segment: number;
  offset: number;
}

/** A batch read from the spool and the position after it. */
export interface SpoolBatch {
  events: StoredEvent[];
  next: SpoolPosition;
}

/**
 * Up to `maxEvents` complete events (about `maxBytes`) after `afterSeq`, from `from` onwards. Only
 * durable bytes are read (segment `end`); a segment read to its end continues with the next one.
 */
export async function readSpool(segments: readonly Segment[], from: SpoolPosition, afterSeq: number, maxEvents: number, maxBytes: number): Promise<SpoolBatch> {
  const events: StoredEvent[] = [];
  let pos = { ...from };
  let bytes = 0;
  let chunk = Math.max(maxBytes, 64 * 1024);
  for (const seg of segments) {
    if (seg.number < pos.segment) continue;
    if (seg.number > pos.segment) pos = { segment: seg.number, offset: 0 };
    if (pos.offset >= seg.end) continue;
    const handle = await open(seg.path, 'r');
    try {
      while (pos.offset < seg.end && events.length < maxEvents && bytes < maxBytes) {
        const length = Math.min(seg.end - pos.offset, chunk);
        const buf = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buf, 0, length, pos.offset);
        let start = 0;
        for (let nl = buf.indexOf(0x0a); nl >= 0 && nl < bytesRead && events.length < maxEvents; nl = buf.indexOf(0x0a, start)) {
          const e = toStored(decodeLine(buf.toString('utf8', start, nl)));
          start = nl + 1;
          if (e.seq > afterSeq) events.push(e);
        }
        if (start === 0) {
          // A line longer than the chunk: read again with room for it (durable ends are line ends).
          if (length === seg.end - pos.offset) throw new Error(`${seg.path}: no line end before the durable end at ${seg.end}`);
          chunk *= 2;
          continue;
        }
        pos = { segment: seg.number, offset: pos.offset + start };
        bytes += start;
      }
    } finally {
      await handle.close();
    }
    if (events.length >= maxEvents || bytes >= maxBytes) break;
  }
  return { events, next: pos };
}

/** The undelivered bytes from `pos` to the durable end of the spool. */
export function backlogBytes(segments: readonly Segment[], pos: SpoolPosition): number {
  let bytes = 0;
  for (const seg of segments) {
    if (seg.number > pos.segment) bytes += seg.end;
    else if (seg.number === pos.segment) bytes += Math.max(0, seg.end - pos.offset);
  }
  return bytes;
}
