// Worker thread owning one namespace's @ruvector/core database, so the engine's slow open never blocks the API.
//
// Opening an existing database rebuilds its HNSW graph by re-inserting every stored vector,
// synchronously (measured here: 5 s for 10,000 × 384). In the API thread that froze every route,
// the probes included, for the whole rebuild. Here it only delays this worker's replies; the
// namespace answers exactly from its in-memory vectors meanwhile (memory-namespace.ts).
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { VectorDb as VectorDbClass } from '@ruvector/core';
import type { IndexReply, IndexRequest, IndexWorkerData } from './ruvector-protocol.js';

const port = parentPort!;
const { file, dimension, hnsw } = workerData as IndexWorkerData;

let db: VectorDbClass | undefined;
let openError: string | undefined;
try {
  const { VectorDb } = createRequire(import.meta.url)('@ruvector/core') as typeof import('@ruvector/core');
  // storagePath is always given: without it the engine writes ./ruvector.db into the working directory.
  db = new VectorDb({ dimensions: dimension, storagePath: file, distanceMetric: 'Cosine', hnswConfig: { ...hnsw } });
} catch (err) {
  openError = (err as Error).message;
}
port.postMessage({ seq: 0, ok: openError === undefined, ...(openError ? { error: openError } : {}) } satisfies IndexReply);

async function run(db: VectorDbClass, request: IndexRequest): Promise<unknown> {
  switch (request.op) {
    case 'missing': {
      const lacking: string[] = [];
      for (const id of request.ids) if ((await db.get(id)) === null) lacking.push(id);
      return lacking;
    }
    case 'insertBatch':
      return db.insertBatch(request.entries.map((e) => ({ id: e.id, vector: e.vector })));
    case 'delete':
      return db.delete(request.id);
    case 'search':
      return (await db.search({ vector: request.vector, k: request.k })).map((h) => h.id);
  }
}

// Requests are answered one at a time, in order: the namespace relies on its writes reaching the
// engine in catalogue order.
let queue: Promise<void> = Promise.resolve();
port.on('message', (request: IndexRequest) => {
  queue = queue.then(async () => {
    try {
      if (!db) throw new Error(`the index ${file} did not open: ${openError}`);
      port.postMessage({ seq: request.seq, ok: true, value: await run(db, request) } satisfies IndexReply);
    } catch (err) {
      port.postMessage({ seq: request.seq, ok: false, error: (err as Error).message } satisfies IndexReply);
    }
  });
});
