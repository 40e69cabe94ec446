// The worker thread of one materialisation (a restore or a fork), of one part of a build split over threads, of a clone given to a new owner, or of the reading of a large entries file: synchronous file calls at full speed, off the API's event loop; one message back, then it exits.
import { parentPort, workerData } from 'node:worker_threads';
import { materialize } from './materialize.js';
import { buildPart } from './materialize-files.js';
import { regiveClone } from './regive-clone.js';
import { chunkListTransfer, readChunkLists } from './chunk-list.js';
import type { ChunkList, ChunkListJob, JobReply, MaterializeJob, MaterializePart, RegiveJob } from './snapshot-protocol.js';

const job = workerData as MaterializeJob | MaterializePart | RegiveJob | ChunkListJob;
let reply: JobReply;
try {
  reply = { ok: true, result: await run(job) };
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  reply = { ok: false, message: e.message, ...(e.code ? { code: e.code } : {}) };
}
// A chunk list's bytes are moved, not copied.
parentPort!.postMessage(reply, reply.ok && job.op === 'chunk-list' ? chunkListTransfer(reply.result as ChunkList[]) : []);

async function run(job: MaterializeJob | MaterializePart | RegiveJob | ChunkListJob) {
  switch (job.op) {
    case 'materialize':
      return materialize(job);
    case 'regive-clone':
      return regiveClone(job);
    case 'chunk-list':
      return readChunkLists(job);
    default:
      return buildPart(job);
  }
}
