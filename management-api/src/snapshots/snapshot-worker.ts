// The worker thread of one snapshot job: synchronous file calls at full speed, off the API's event loop; one message back, then it exits.
import { parentPort, workerData } from 'node:worker_threads';
import { capture } from './capture.js';
import { materialize } from './materialize.js';
import type { JobReply, SnapshotJob } from './snapshot-protocol.js';

const job = workerData as SnapshotJob;
let reply: JobReply;
try {
  reply = { ok: true, result: job.op === 'capture' ? capture(job) : materialize(job) };
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  reply = { ok: false, message: e.message, ...(e.code ? { code: e.code } : {}) };
}
// The entries' bytes are moved, not copied.
const transfer = reply.ok && 'entriesText' in reply.result ? [reply.result.entriesText.buffer as ArrayBuffer] : [];
parentPort!.postMessage(reply, transfer);
