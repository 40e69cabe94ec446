// The files of an event log directory: naming, listing in order, and reading their edge lines.
import { open, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** One segment of a log: `<prefix>-<number>.jsonl`, numbered from 1 in write order. */
export interface LogFile {
  number: number;
  path: string;
}

const NAME = /^(.+)-(\d{6,})\.jsonl$/;

/** The file name of segment `number`. Six digits keep names sorting in write order. */
export function segmentName(prefix: string, number: number): string {
  return `${prefix}-${String(number).padStart(6, '0')}.jsonl`;
}

/** The segments of `prefix` in `dir`, oldest first (a missing directory has none). */
export async function listSegments(dir: string, prefix: string): Promise<LogFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: LogFile[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (m && m[1] === prefix) out.push({ number: Number(m[2]), path: path.join(dir, name) });
  }
  return out.sort((a, b) => a.number - b.number);
}

/**
 * The first line of a file (without its newline), or undefined when its first `size` bytes hold
 * no complete line. Bounded by the size so a device or a file still growing cannot keep it reading.
 */
export async function readFirstLine(file: string, chunk = 64 * 1024): Promise<string | undefined> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    let text = '';
    for (let position = 0; position < size; position += chunk) {
      const buf = Buffer.alloc(Math.min(chunk, size - position));
      const { bytesRead } = await handle.read(buf, 0, buf.length, position);
      if (bytesRead === 0) return undefined;
      text += buf.toString('utf8', 0, bytesRead);
      const nl = text.indexOf('\n');
      if (nl >= 0) return text.slice(0, nl);
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Where the complete lines of an open file end, and the last complete line. Bytes after the last
 * newline are a torn write (an append cut short by a crash): the caller truncates them.
 */
export async function scanTail(handle: FileHandle, size: number, chunk = 64 * 1024): Promise<{ end: number; lastLine?: string }> {
  let tail = Buffer.alloc(0);
  let position = size;
  while (position > 0) {
    const length = Math.min(chunk, position);
    position -= length;
    const buf = Buffer.alloc(length);
    await handle.read(buf, 0, length, position);
    tail = Buffer.concat([buf, tail]);
    const lastNl = tail.lastIndexOf(0x0a);
    if (lastNl < 0) continue;
    const prevNl = tail.lastIndexOf(0x0a, lastNl - 1);
    // The line before the last newline is complete only once its own start is in view.
    if (prevNl >= 0 || position === 0) {
      const end = position + lastNl + 1;
      return { end, lastLine: tail.toString('utf8', prevNl + 1, lastNl) };
    }
  }
  return { end: 0 };
}
