// The worker thread of one materialisation (a restore or a fork), of one part of a build split over threads, of a clone given to a new owner, or of the reading of a large entries file (its chunks, a diff): synchronous file calls at full speed, off the API's event loop; one message back, then it exits.
import { parentPort, workerData } from 'node:worker_threads';
import { materialize } from './materialize.js';
import { buildPart } from './materialize-files.js';
import { regiveClone } from './regive-clone.js';
import { chunkListTransfer, readChunkLists } from './chunk-list.js';
import { readDiff } from './snapshot-diff.js';
import type { DiffJob } from './snapshot-diff.js';
import {
  type ChunkList,
  type ChunkListJob,
  failedReply,
  type JobReply,
  type MaterializeJob,
  type MaterializePart,
  type RegiveJob,
} from './snapshot-protocol.js';

type Job = MaterializeJob | MaterializePart | RegiveJob | ChunkListJob | DiffJob;
const job = workerData as Job;
let reply: JobReply;
try {
  reply = { ok: true, result: await run(job) };
} catch (err) {
  reply = failedReply(err);
}
// A chunk list's bytes are moved, not copied.
parentPort!.postMessage(reply, reply.ok && job.op === 'chunk-list' ? chunkListTransfer(reply.result as ChunkList[]) : []);

async function run(job: Job) {
  switch (job.op) {
    case 'materialize':
      return materialize(job);
    case 'regive-clone':
      return regiveClone(job);
    case 'chunk-list':
      return readChunkLists(job);
    case 'diff':
      return readDiff(job);
    default:
      return buildPart(job);
  }
}
