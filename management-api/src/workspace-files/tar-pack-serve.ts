// The serving side of a tar worker: packs asked of the thread run at once, each paced by its reader, its tar written into batches moved to the API's thread and handed back to be reused.
import { parentPort } from 'node:worker_threads';
import type { Pace, PackReport } from './tar-pack-walk.js';
import type { PackControl, PackDone, PackFromWorker, PackJob, PackToWorker } from './tar-pack-protocol.js';
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

/** What packs one kind of request: writes its tar into `out`, awaiting `pace` before each entry. */
export type Packer<R extends PackJob> = (out: TarWriter, request: R, report: PackReport, pace: Pace) => Promise<void>;

/**
 * Serve the packs asked of this worker thread: each request is packed by the packer of its `type`.
 * Called once, by the worker's entry module (tar-pack-worker.ts; the snapshot store has its own).
 */
export function servePacks<R extends PackJob>(packers: Record<string, Packer<R>>): void {
  port.on('message', (message: PackToWorker) => onMessage(message, packers as Record<string, Packer<PackJob>>));
}

function onMessage(message: PackToWorker, packers: Record<string, Packer<PackJob>>): void {
  if (!isControl(message)) {
    const packer = packers[message.type];
    if (packer) void run(message, packer);
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
}

function isControl(message: PackToWorker): message is PackControl {
  return message.type === 'credit' || message.type === 'abort' || message.type === 'recycle';
}

class Aborted extends Error {}

/**
 * One pack: its tar written into batches of BATCH_BYTES (tar-writer.ts), each moved (not copied)
 * to the API's thread. At most WINDOW batches are on their way unread, so a slow client holds the
 * walk, not memory. Any descriptor the request names is the caller's: used until the `done` message, which
 * comes last, after every descriptor opened here is closed.
 */
async function run(request: PackJob, packer: Packer<PackJob>): Promise<void> {
  const { id } = request;
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
    await packer(out, request, report, pace);
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
