// A job's thread that answers, then throws (as a hook of a thread's exit can): its answer is what the job gives.
import { parentPort, workerData } from 'node:worker_threads';

parentPort.postMessage({ ok: true, result: workerData.answer });
throw new Error('thrown after the answer');
