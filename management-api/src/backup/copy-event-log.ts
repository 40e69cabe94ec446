// The event log into a backup, up to its latest signed checkpoint: the segments' first SIZE lines,
// the checkpoint and verifier key, the history and cosignatures of checkpoints up to SIZE, and the
// stored Merkle tree's prefix for SIZE entries (the restored box repairs the rest). A log without
// a checkpoint is copied to its last complete line.
import { open, readdir, readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { listSegments } from '../adapters/events/log-files.js';
import { TLOG_FILES } from '../adapters/events/log-checkpoints.js';
import { LOG_PREFIX } from '../adapters/events/local-jsonl.js';
import { parseCheckpoint } from '../tlog/checkpoint.js';
import { openNote, parseVerifierKey } from '../tlog/signed-note.js';
import { storedHashCount } from '../tlog/stored-hashes.js';
import { HASH_SIZE } from '../tlog/rfc6962.js';
import type { BackedUpLog } from './backup-format.js';
import { SteppedFile } from './stepped-write.js';

const CHUNK = 1024 * 1024;

/** Undefined for a missing file, else its text. */
async function readIfThere(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

/**
 * Copy the first `max` complete lines of `source` to `target` (created only when there is a line).
 * Returns how many were copied: fewer when the file holds fewer.
 */
async function copyLines(source: string, target: string, max: number): Promise<number> {
  const input = await open(source, 'r');
  let output: SteppedFile | undefined;
  let lines = 0;
  try {
    const size = (await input.stat()).size;
    const buf = Buffer.allocUnsafe(CHUNK);
    let position = 0;
    // Bytes read but not yet written: they end in a line still incomplete.
    let pending: Buffer[] = [];
    while (position < size && lines < max) {
      const { bytesRead } = await input.read(buf, 0, Math.min(CHUNK, size - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let end = -1;
      for (let i = buf.indexOf(10, 0); i !== -1 && i < bytesRead; i = buf.indexOf(10, i + 1)) {
        lines += 1;
        end = i;
        if (lines === max) break;
      }
      if (end === -1) {
        pending.push(Buffer.from(buf.subarray(0, bytesRead)));
        continue;
      }
      output ??= await SteppedFile.create(target);
      for (const p of pending) await output.write(p);
      pending = [];
      await output.write(buf.subarray(0, end + 1));
      if (lines < max && end + 1 < bytesRead) pending.push(Buffer.from(buf.subarray(end + 1, bytesRead)));
    }
    return lines;
  } finally {
    await input.close();
    await output?.close();
  }
}

/** The lines of a JSONL file whose `size` is at most `size` (a torn or foreign line is left out). */
function upToSize(text: string, size: number): string {
  return text
    .split('\n')
    .filter((line) => {
      try {
        const record = JSON.parse(line) as { size?: unknown };
        return typeof record.size === 'number' && record.size <= size;
      } catch {
        return false;
      }
    })
    .map((line) => `${line}\n`)
    .join('');
}

/** Copy the log in `from` to `to`; undefined when there is no log. */
export async function copyEventLog(from: string, to: string): Promise<BackedUpLog | undefined> {
  const segments = await listSegments(from, LOG_PREFIX);
  if (!segments.length) return undefined;
  const tlogFrom = path.join(from, 'tlog');
  // The checkpoint first: every line it covers is already durable in the segments.
  const note = await readIfThere(path.join(tlogFrom, TLOG_FILES.checkpoint));
  const verifierKey = note === undefined ? undefined : await readFile(path.join(tlogFrom, TLOG_FILES.verifierKey), 'utf8');
  const c = note === undefined ? undefined : parseCheckpoint(openNote(note, parseVerifierKey(verifierKey!.trim())));
  await mkdir(to, { recursive: true, mode: 0o700 });
  const limit = c?.size ?? Number.POSITIVE_INFINITY;
  let copied = 0;
  for (const segment of segments) {
    if (copied >= limit) break;
    copied += await copyLines(segment.path, path.join(to, path.basename(segment.path)), limit - copied);
  }
  if (!c) return { events: copied };
  if (copied < c.size) {
    throw new Error(
      `the event log in ${from} holds ${copied} entries, fewer than its signed checkpoint's ${c.size}: it was truncated (agentbox events verify says where)`,
    );
  }
  const tlogTo = path.join(to, 'tlog');
  await mkdir(tlogTo, { recursive: true, mode: 0o700 });
  await writeFile(path.join(tlogTo, TLOG_FILES.checkpoint), note!, { mode: 0o644 });
  await writeFile(path.join(tlogTo, TLOG_FILES.verifierKey), verifierKey!, { mode: 0o644 });
  for (const name of await readdir(tlogFrom)) {
    if (!name.endsWith('.jsonl')) continue;
    const text = await readIfThere(path.join(tlogFrom, name));
    if (text !== undefined) await writeFile(path.join(tlogTo, name), upToSize(text, c.size), { mode: 0o644 });
  }
  await copyTreePrefix(path.join(tlogFrom, TLOG_FILES.tree), path.join(tlogTo, TLOG_FILES.tree), storedHashCount(c.size) * HASH_SIZE);
  return { events: copied, checkpoint: { origin: c.origin, size: c.size, root: c.root.toString('base64') } };
}

/** The first `bytes` of the stored tree, when it has them (else none: the restored box hashes the log again). */
async function copyTreePrefix(source: string, target: string, bytes: number): Promise<void> {
  const input = await open(source, 'r').catch(() => undefined);
  if (!input) return;
  try {
    if ((await input.stat()).size < bytes) return;
    const output = await SteppedFile.create(target);
    try {
      const buf = Buffer.allocUnsafe(CHUNK);
      for (let position = 0; position < bytes; ) {
        const { bytesRead } = await input.read(buf, 0, Math.min(CHUNK, bytes - position), position);
        if (bytesRead === 0) throw new Error(`${source} ended early`);
        await output.write(buf.subarray(0, bytesRead));
        position += bytesRead;
      }
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}
