// The snapshot reader's thread: answers reads inside large snapshots (a path, a listing, a file's chunks) one after another, keeping the records it last checked, so a second read of a snapshot neither reads nor hashes its record again while its file is unchanged.
import { closeSync, fstatSync, openSync, readFileSync, statSync, type BigIntStats } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { EntriesScan } from './entries-scan.js';
import { findChunks } from './object-store.js';
import { type BrowseJob, browseEntries } from './snapshot-browse.js';
import { failedReply, type JobReply } from './snapshot-protocol.js';
import type { ReaderReply, ReaderRequest } from './snapshot-reader.js';

/**
 * How many bytes of checked records are kept: a snapshot of 54,000 files has a record of 13 MB,
 * so a few large snapshots, the ones being browsed. The least recently read go first.
 */
const KEPT_BYTES = 64 * 1024 * 1024;

/** A kept record: its checked bytes, and its file as it was when they were read (stampOf). */
interface KeptRecord {
  scan: EntriesScan;
  stamp: string;
}

/** Checked records by file and sha256, the most recently read last (a Map keeps insertion order). */
const kept = new Map<string, KeptRecord>();
let keptBytes = 0;

/**
 * A file as the kernel knows it: which inode, its size, and when its bytes and its inode last
 * changed. Any write to the file (or a file renamed over it) changes the ctime, which no caller
 * can set back, so an unchanged stamp means the bytes read are still the file's.
 */
const stampOf = (s: BigIntStats): string => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

/**
 * A snapshot's record, checked against its sha256 when it is read. A snapshot never changes (its
 * id names one capture, and a record is written once), so the checked bytes are kept and answer
 * the next reads, for as long as the file's stamp is the one they were read with: a file written
 * since (damaged on disk, or edited by hand) is read and checked again, so the damage is an
 * error, never an answer from the kept copy. Costs one stat a read.
 */
function recordOf(job: BrowseJob): { scan: EntriesScan; read: boolean } {
  const key = `${job.entriesFile}\n${job.entriesSha256}`;
  const known = kept.get(key);
  if (known) {
    forget(key, known);
    if (known.stamp === stampOf(statSync(job.entriesFile, { bigint: true }))) {
      keep(key, known);
      return { scan: known.scan, read: false };
    }
  }
  // Stamped by the descriptor the bytes are read through, before the read: a write during it changes the stamp the next read compares.
  const fd = openSync(job.entriesFile, 'r');
  let record: KeptRecord;
  try {
    const stamp = stampOf(fstatSync(fd, { bigint: true }));
    record = { scan: EntriesScan.of(readFileSync(fd), job.entriesSha256, job.entriesFile), stamp };
  } finally {
    closeSync(fd);
  }
  if (record.scan.byteLength <= KEPT_BYTES) {
    keep(key, record);
    for (const [k, old] of kept) {
      if (keptBytes <= KEPT_BYTES) break;
      forget(k, old);
    }
  }
  return { scan: record.scan, read: true };
}

function keep(key: string, record: KeptRecord): void {
  kept.set(key, record);
  keptBytes += record.scan.byteLength;
}

function forget(key: string, record: KeptRecord): void {
  kept.delete(key);
  keptBytes -= record.scan.byteLength;
}

function answer(job: BrowseJob): { reply: JobReply; recordRead: boolean } {
  let recordRead = false;
  try {
    const record = recordOf(job);
    recordRead = record.read;
    const result = browseEntries(record.scan, job.path, { list: job.list, ...(job.locate ? { locate: (hashes) => findChunks(job.storeDir, hashes) } : {}) });
    return { reply: { ok: true, result }, recordRead };
  } catch (err) {
    return { reply: failedReply(err), recordRead };
  }
}

parentPort!.on('message', ({ id, job }: ReaderRequest) => {
  const reply: ReaderReply = { id, ...answer(job) };
  parentPort!.postMessage(reply);
});
