// Messages between a namespace's RuvectorIndex (API thread) and the worker that owns its database.

/** What the worker is started with. */
export interface IndexWorkerData {
  file: string;
  dimension: number;
  hnsw: { m: number; efConstruction: number; efSearch: number; maxElements: number };
}

/** One call; `seq` pairs it with its reply (0 is the worker's "opened" message). */
export type IndexRequest = { seq: number } & (
  | { op: 'missing'; ids: string[] }
  | { op: 'insertBatch'; entries: Array<{ id: string; vector: Float32Array }> }
  | { op: 'delete'; id: string }
  | { op: 'search'; vector: Float32Array; k: number }
);

/** The answer to one call, or to the open (seq 0). */
export interface IndexReply {
  seq: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}
