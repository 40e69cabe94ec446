// A capture worker thread: runs the captures it is sent one at a time, and keeps what the next capture of an agent reuses (the store's chunk hashes, the entries it made).
import { parentPort } from 'node:worker_threads';
import { capture } from './capture.js';
import { CaptureCache } from './capture-cache.js';
import { type CaptureReply, type CaptureRequest, failedReply, type JobReply } from './snapshot-protocol.js';
import { StatAhead } from './stat-ahead.js';

const cache = new CaptureCache();
const ahead = new StatAhead();

parentPort!.on('message', ({ id, job }: CaptureRequest) => {
  let reply: JobReply;
  try {
    reply = { ok: true, result: capture(job, cache, ahead) };
  } catch (err) {
    reply = failedReply(err);
  }
  // The entries' bytes are moved, not copied.
  const transfer = reply.ok && typeof reply.result === 'object' && 'entriesText' in reply.result ? [reply.result.entriesText.buffer as ArrayBuffer] : [];
  parentPort!.postMessage({ id, reply } satisfies CaptureReply, transfer);
  // Once the answer is on its way: the agent's next capture's share for the helper, made while this thread is idle.
  const newest = cache.newest;
  if (reply.ok && newest) ahead.prepare(newest);
});
