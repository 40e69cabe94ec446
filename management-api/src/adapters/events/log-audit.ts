// Checking a local event log against a signed checkpoint: the signature, then that the log's first
// `size` entries hash to the signed root — catching a truncated log and a rewritten one.
import { open } from 'node:fs/promises';
import path from 'node:path';
import { parseCheckpoint } from '../../tlog/checkpoint.js';
import { treeRoot } from '../../tlog/prove.js';
import { HASH_SIZE, leafHash } from '../../tlog/rfc6962.js';
import { openNote, parseVerifierKey } from '../../tlog/signed-note.js';
import { hashesToStore, rootFromFrontier, storedHashCount, storedHashIndex } from '../../tlog/stored-hashes.js';
import { listSegments } from './log-files.js';
import { storedLines } from './log-lines.js';
import { TLOG_FILES } from './log-checkpoints.js';
import { readHashes } from './merkle-store.js';

/** Where an entry is in the log's files. */
export interface EntryPlace {
  /** 0-based entry index (its seq − 1). */
  index: number;
  file: string;
  /** 1-based line number in that file. */
  line: number;
}

/** What checking the log against a checkpoint found. */
export interface CheckpointAudit {
  ok: boolean;
  checkpoint: { origin: string; size: number; root: string };
  /** Complete lines in the log. */
  entries: number;
  /** `truncated`: fewer entries than the checkpoint covers; `rewritten`: the first `size` entries give another root. */
  problem?: 'truncated' | 'rewritten';
  /** The first entry that differs from the one the box stored (when its stored tree still gives the signed root). */
  firstDiffering?: EntryPlace;
  message: string;
}

/**
 * Verify `note` with `verifierKey` (throws NoteError or CheckpointError when it does not verify or
 * parse), then hash the log in `dir` and compare. The log's own tree (`tlog/tree.hashes`), when it
 * still gives the signed root, names the first entry that was changed since.
 */
export async function auditAgainstCheckpoint(dir: string, note: string, verifierKey: string, prefix = 'events'): Promise<CheckpointAudit> {
  const verifier = parseVerifierKey(verifierKey);
  const c = parseCheckpoint(openNote(note, verifier));
  if (c.origin !== verifier.name) throw new Error(`the checkpoint is for the log ${c.origin}, but the verifier key is ${verifier.name}'s`);
  const checkpoint = { origin: c.origin, size: c.size, root: c.root.toString('base64') };
  const frontier: Buffer[] = [];
  let entries = 0;
  for await (const line of logLines(dir, prefix)) {
    if (entries < c.size) hashesToStore(entries, leafHash(line.bytes), frontier);
    entries += 1;
  }
  if (entries < c.size) {
    return {
      ok: false,
      checkpoint,
      entries,
      problem: 'truncated',
      message: `the log holds ${entries} entries but the checkpoint covers ${c.size}: ${c.size - entries} entries (seq ${entries + 1} to ${c.size}) were removed`,
    };
  }
  if (rootFromFrontier(c.size, frontier).equals(c.root)) {
    return { ok: true, checkpoint, entries, message: `the first ${c.size} of the log's ${entries} entries hash to the checkpoint's root` };
  }
  const firstDiffering = await firstChangedEntry(dir, prefix, c.size, c.root);
  const where = firstDiffering
    ? `; the first entry that differs from the one signed is seq ${firstDiffering.index + 1} (${firstDiffering.file}:${firstDiffering.line})`
    : "; the log's stored tree no longer gives the signed root either, so the entry cannot be named";
  return {
    ok: false,
    checkpoint,
    entries,
    problem: 'rewritten',
    ...(firstDiffering ? { firstDiffering } : {}),
    message: `the log's first ${c.size} entries do not hash to the checkpoint's root: the log was rewritten${where}`,
  };
}

/** Every complete line of the log, numbered across its segments, with its place. */
async function* logLines(dir: string, prefix: string): AsyncGenerator<{ bytes: Buffer; file: string; line: number }> {
  for (const segment of await listSegments(dir, prefix)) {
    let line = 0;
    for await (const stored of storedLines([{ path: segment.path, firstIndex: 0 }])) {
      line += 1;
      yield { bytes: stored.bytes, file: path.basename(segment.path), line };
    }
  }
}

/**
 * The stored leaf hashes were written as entries were appended. If they still give the signed
 * root they are the signed leaves (SHA-256 being collision resistant), and the first stored leaf
 * that the log's line no longer hashes to is the first rewritten entry.
 */
async function firstChangedEntry(dir: string, prefix: string, size: number, root: Buffer): Promise<EntryPlace | undefined> {
  const handle = await open(path.join(dir, 'tlog', TLOG_FILES.tree), 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    if ((await handle.stat()).size < storedHashCount(size) * HASH_SIZE) return undefined;
    const read = (nodes: Array<{ level: number; index: number }>) =>
      readHashes(
        handle,
        nodes.map((n) => storedHashIndex(n.level, n.index)),
      );
    if (!(await treeRoot(size, read)).equals(root)) return undefined;
    let index = 0;
    for await (const line of logLines(dir, prefix)) {
      if (index >= size) break;
      const [stored] = await readHashes(handle, [storedHashIndex(0, index)]);
      if (!leafHash(line.bytes).equals(stored!)) return { index, file: line.file, line: line.line };
      index += 1;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}
