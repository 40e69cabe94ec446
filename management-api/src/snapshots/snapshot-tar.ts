// A directory of a snapshot as a tar stream, packed from the store in a worker thread of the snapshot store's own (snapshot-tar-worker.ts), read here as a Node stream.
import path from 'node:path';
import { PackWorker, type Packing, type PackReport } from '../workspace-files/tar-pack.js';
import type { SnapshotTarSource } from './snapshot-tar-walk.js';

let shared: PackWorker | undefined;

/** The tar of `source`'s directory, paced by its reader as a workspace's is (tar-pack.ts); one worker serves every such pack of the process. */
export function packSnapshotTar(source: SnapshotTarSource, report: PackReport): Packing & { recycle: (batch: Buffer) => void } {
  if (!shared) {
    // Beside this module: .js when built (and bundled), .ts when the tests run the sources.
    const worker = new PackWorker(
      () => {
        if (shared === worker) shared = undefined;
      },
      undefined,
      new URL(`./snapshot-tar-worker${path.extname(import.meta.url)}`, import.meta.url),
    );
    shared = worker;
  }
  const worker = shared;
  return { ...worker.start((id) => ({ type: 'pack-snapshot', id, ...source }), report), recycle: (batch) => worker.recycle(batch) };
}
