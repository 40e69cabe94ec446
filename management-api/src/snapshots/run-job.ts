// Runs one materialisation (or a clone's change of owner, or the reading of a large entries file: its chunks, a diff) in a worker thread of its own and answers with its result; a full disk is told apart from other failures (JobError, which capture threads answer with too).
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DiffJob, SnapshotDiff } from './snapshot-diff.js';
import type { ChunkList, ChunkListJob, JobReply, MaterializeJob, MaterializeResult, RegiveJob } from './snapshot-protocol.js';

/** A job failed in the worker; `code` is its errno code (ENOSPC, EDQUOT: the disk is full). */
export class JobError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }

  get diskFull(): boolean {
    return this.code === 'ENOSPC' || this.code === 'EDQUOT';
  }
}

/** The jobs' thread: beside this module, .js when built, .ts when the tests run the sources (the worker inherits their loader). */
const SNAPSHOT_WORKER = new URL(`./snapshot-worker${path.extname(import.meta.url)}`, import.meta.url);

/** Run `job` on a thread of its own (`script`: the snapshot worker; a test gives one of its own). */
export function runJob(job: MaterializeJob, script?: URL): Promise<MaterializeResult>;
export function runJob(job: RegiveJob, script?: URL): Promise<number>;
export function runJob(job: ChunkListJob, script?: URL): Promise<ChunkList[]>;
export function runJob(job: DiffJob, script?: URL): Promise<SnapshotDiff>;
export function runJob(job: MaterializeJob | RegiveJob | ChunkListJob | DiffJob, script = SNAPSHOT_WORKER): Promise<unknown> {
  const worker = new Worker(script, { workerData: job });
  // Settled once the thread has exited, with its answer when it gave one: an error the thread
  // throws after answering (a hook of its exit) can reach this side before the answer does, and
  // failed a job whose work was done. Node delivers a thread's messages before its 'exit'.
  return new Promise((resolve, reject) => {
    let reply: JobReply | undefined;
    let crashed: Error | undefined;
    worker.once('message', (r: JobReply) => {
      reply = r;
    });
    worker.once('error', (err) => {
      crashed = err;
    });
    worker.once('exit', (code) => {
      if (reply?.ok) resolve(reply.result);
      else if (reply) reject(new JobError(reply.message, reply.code));
      else reject(crashed ?? new Error(`the snapshot worker exited (code ${code}) without an answer`));
    });
  });
}
