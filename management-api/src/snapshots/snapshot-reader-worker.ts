// The snapshot reader's thread: answers reads inside large snapshots (a path, a listing, a file's chunks) one after another, keeping the records it last checked, so a second read of a snapshot neither reads nor hashes its record again.
import { readFileSync } from 'node:fs';
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

/** Checked records by file and sha256, the most recently read last (a Map keeps insertion order). */
const kept = new Map<string, EntriesScan>();
let keptBytes = 0;

/**
 * A snapshot's record, checked against its sha256 when it is first read. A snapshot never changes
 * (its id names one capture, and a record is written once), so the checked bytes stay its truth:
 * damage to the file later is found by the next reader that reads it (a restart, a backup's check).
 */
function recordOf(job: BrowseJob): EntriesScan {
  const key = `${job.entriesFile}\n${job.entriesSha256}`;
  const known = kept.get(key);
  if (known) {
    kept.delete(key);
    kept.set(key, known);
    return known;
  }
  const scan = EntriesScan.of(readFileSync(job.entriesFile), job.entriesSha256, job.entriesFile);
  if (scan.byteLength <= KEPT_BYTES) {
    kept.set(key, scan);
    keptBytes += scan.byteLength;
    for (const [k, old] of kept) {
      if (keptBytes <= KEPT_BYTES) break;
      kept.delete(k);
      keptBytes -= old.byteLength;
    }
  }
  return scan;
}

function answer(job: BrowseJob): JobReply {
  try {
    const result = browseEntries(recordOf(job), job.path, { list: job.list, ...(job.locate ? { locate: (hashes) => findChunks(job.storeDir, hashes) } : {}) });
    return { ok: true, result };
  } catch (err) {
    return failedReply(err);
  }
}

parentPort!.on('message', ({ id, job }: ReaderRequest) => {
  const reply: ReaderReply = { id, reply: answer(job) };
  parentPort!.postMessage(reply);
});
