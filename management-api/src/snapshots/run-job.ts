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

export function runJob(job: MaterializeJob): Promise<MaterializeResult>;
export function runJob(job: RegiveJob): Promise<number>;
export function runJob(job: ChunkListJob): Promise<ChunkList[]>;
export function runJob(job: DiffJob): Promise<SnapshotDiff>;
export function runJob(job: MaterializeJob | RegiveJob | ChunkListJob | DiffJob): Promise<unknown> {
  // Beside this module: .js when built, .ts when the tests run the sources (the worker inherits their loader).
  const worker = new Worker(new URL(`./snapshot-worker${path.extname(import.meta.url)}`, import.meta.url), { workerData: job });
  return new Promise((resolve, reject) => {
    let settled = false;
    worker.once('message', (reply: JobReply) => {
      settled = true;
      if (reply.ok) resolve(reply.result);
      else reject(new JobError(reply.message, reply.code));
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the snapshot worker exited (code ${code}) without an answer`));
    });
  });
}
