// The tar worker: packs directories for packTar (tar-pack.ts) with synchronous file calls, several packs at once, each paced by its reader.
import { parentPort } from 'node:worker_threads';
import * as tar from 'tar-stream';
import { packDirectory, type PackReport } from './tar-pack-walk.js';
import type { PackDone, PackRequest, PackToWorker } from './tar-pack-protocol.js';
import { BATCH_BYTES, WINDOW } from './tar-pack-protocol.js';

/** A pack in progress: the batches its reader still has room for, and whether it was called off. */
interface Running {
  credits: number;
  aborted: boolean;
  wake: (() => void) | undefined;
}

const port = parentPort!;
const running = new Map<number, Running>();

port.on('message', (message: PackToWorker) => {
  if (message.type === 'pack') {
    void run(message);
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
 * One pack: its output cut into batches of about BATCH_BYTES, each copied once into a buffer of its
 * own and moved (not copied again) to the API's thread. At most WINDOW batches are on their way
 * unread, so a slow client holds the walk, not memory. The directory descriptor is the caller's:
 * used until the `done` message, which comes last, after every descriptor opened here is closed.
 */
async function run({ id, dirFd, ownUid }: PackRequest): Promise<void> {
  const job: Running = { credits: WINDOW, aborted: false, wake: undefined };
  running.set(id, job);
  const report: PackReport = { entries: 0, skipped: 0 };
  const pack = tar.pack();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = (): void => {
    if (pendingBytes === 0) return;
    const batch = Buffer.allocUnsafeSlow(pendingBytes);
    let at = 0;
    for (const piece of pending) {
      piece.copy(batch, at);
      at += piece.length;
    }
    pending = [];
    pendingBytes = 0;
    job.credits--;
    port.postMessage({ type: 'data', id, bytes: batch }, [batch.buffer as ArrayBuffer]);
  };
  pack.on('data', (data) => {
    const piece = data as Buffer;
    pending.push(piece);
    pendingBytes += piece.length;
    if (pendingBytes >= BATCH_BYTES) flush();
  });
  const ended = new Promise<void>((resolve, reject) => {
    pack.once('end', resolve);
    pack.once('error', reject);
  });
  // A pack that fails mid-walk fails the walk too; this one is only awaited after a whole walk.
  ended.catch(() => undefined);
  const pace = async (): Promise<void> => {
    while (!job.aborted && job.credits <= 0) await new Promise<void>((resolve) => (job.wake = resolve));
    if (job.aborted) throw new Aborted();
  };
  let done: PackDone;
  try {
    await packDirectory(pack, dirFd, ownUid, report, pace);
    pack.finalize();
    await ended;
    flush();
    done = { type: 'done', id, report };
  } catch (err) {
    pack.destroy();
    done = err instanceof Aborted ? { type: 'done', id, report, aborted: true } : { type: 'done', id, report, error: (err as Error).message };
  } finally {
    running.delete(id);
  }
  port.postMessage(done);
}
