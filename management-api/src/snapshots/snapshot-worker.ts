// The worker thread of one materialisation (a restore or a fork), or of one part of a build split over threads: synchronous file calls at full speed, off the API's event loop; one message back, then it exits.
import { parentPort, workerData } from 'node:worker_threads';
import { materialize } from './materialize.js';
import { buildPart } from './materialize-files.js';
import type { JobReply, MaterializeJob, MaterializePart } from './snapshot-protocol.js';

const job = workerData as MaterializeJob | MaterializePart;
let reply: JobReply;
try {
  reply = { ok: true, result: job.op === 'materialize' ? await materialize(job) : buildPart(job) };
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  reply = { ok: false, message: e.message, ...(e.code ? { code: e.code } : {}) };
}
parentPort!.postMessage(reply);
