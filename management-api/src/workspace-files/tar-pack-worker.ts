// The tar worker: packs directories for packTar (tar-pack.ts) with synchronous file calls, several packs at once, each paced by its reader.
import { parentPort } from 'node:worker_threads';
import { HoleAllowance } from './hole-allowance.js';
import { packDirectory, type PackReport } from './tar-pack-walk.js';
import type { PackDone, PackFromWorker, PackRequest, PackToWorker } from './tar-pack-protocol.js';
import { TarWriter } from './tar-writer.js';
import { BATCH_BYTES, SPARE_BATCHES, WINDOW } from './tar-pack-protocol.js';

/** A pack in progress: the batches its reader still has room for, and whether it was called off. */
interface Running {
  credits: number;
  aborted: boolean;
  wake: (() => void) | undefined;
}

const port = parentPort!;
const running = new Map<number, Running>();
/** Batches handed back by the API's thread (Recycle), shared by every pack of this worker. */
const spare: ArrayBuffer[] = [];

/** A batch to write into: a spare one when there is one, else new memory. */
function takeBatch(): Buffer {
  const reused = spare.pop();
  return reused ? Buffer.from(reused) : Buffer.allocUnsafeSlow(BATCH_BYTES);
}

port.on('message', (message: PackToWorker) => {
  if (message.type === 'pack') {
    void run(message);
    return;
  }
  if (message.type === 'recycle') {
    if (message.buffer.byteLength === BATCH_BYTES && spare.length < SPARE_BATCHES) spare.push(message.buffer);
    return;
  }
  const job = running.get(message.id);
  if (!job) return;
  if (message.type === 'credit') job.credits++;
  else job.aborted = true;
  const wake = job.wake;
  job.wake = undefined;
  wake?.();
});

class Aborted extends Error {}

/**
 * One pack: its tar written into batches of BATCH_BYTES (tar-writer.ts), each moved (not copied)
 * to the API's thread. At most WINDOW batches are on their way unread, so a slow client holds the
 * walk, not memory. The directory descriptor is the caller's: used until the `done` message, which
 * comes last, after every descriptor opened here is closed.
 */
async function run({ id, dirFd, ownUid, maxHoleBytes }: PackRequest): Promise<void> {
  const job: Running = { credits: WINDOW, aborted: false, wake: undefined };
  running.set(id, job);
  const report: PackReport = { entries: 0, skipped: 0 };
  const pace = async (): Promise<void> => {
    while (!job.aborted && job.credits <= 0) await new Promise<void>((resolve) => (job.wake = resolve));
    if (job.aborted) throw new Aborted();
  };
  const out = new TarWriter(async (batch) => {
    await pace();
    job.credits--;
    port.postMessage({ type: 'data', id, bytes: batch } satisfies PackFromWorker, [batch.buffer as ArrayBuffer]);
  }, takeBatch);
  let done: PackDone;
  try {
    await packDirectory(out, dirFd, { ownUid, holes: new HoleAllowance(maxHoleBytes, 'a tar download') }, report, pace);
    await out.end();
    done = { type: 'done', id, report };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    done =
      err instanceof Aborted
        ? { type: 'done', id, report, aborted: true }
        : { type: 'done', id, report, error: (err as Error).message, ...(typeof code === 'string' ? { code } : {}) };
  } finally {
    running.delete(id);
  }
  port.postMessage(done);
}
