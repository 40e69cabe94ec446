// The worker thread of one materialisation (a restore or a fork), of one part of a build split over threads, or of a clone given to a new owner: synchronous file calls at full speed, off the API's event loop; one message back, then it exits.
import { parentPort, workerData } from 'node:worker_threads';
import { materialize } from './materialize.js';
import { buildPart } from './materialize-files.js';
import { regiveClone } from './regive-clone.js';
import type { JobReply, MaterializeJob, MaterializePart, RegiveJob } from './snapshot-protocol.js';

const job = workerData as MaterializeJob | MaterializePart | RegiveJob;
let reply: JobReply;
try {
  reply = { ok: true, result: job.op === 'materialize' ? await materialize(job) : job.op === 'regive-clone' ? regiveClone(job) : buildPart(job) };
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  reply = { ok: false, message: e.message, ...(e.code ? { code: e.code } : {}) };
}
parentPort!.postMessage(reply);
