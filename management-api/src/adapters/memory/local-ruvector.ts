// memory/local-ruvector: vector memory on the state volume — SQLite catalogue plus an @ruvector/core HNSW index per namespace.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AdapterContext, Page, PageRequest, SlotHealth } from '../adapter.js';
import { AdapterInputError, AdapterNotFoundError, AdapterUnavailableError } from '../../adapter-errors.js';
import { MemoryCatalog, toRecord } from './memory-catalog.js';
import type { MemoryAdapter, MemoryHit, MemoryQuery, MemoryRecord, MemorySummary, NewMemory } from './memory-adapter.js';
import { checkId, checkK, checkMetadata, checkNamespace, checkText, checkVector, decodeCursor, normalized, pageLimit } from './memory-input.js';
import { DEFAULT_EXACT_BELOW, MemoryNamespace, type NamespaceStats } from './memory-namespace.js';
import { embedText } from './text-embedder.js';

/** This implementation's registry name. */
export const ADAPTER = 'memory/local-ruvector';
export { CONTRACT_VERSION } from './memory-adapter.js';

/** Tuning of the local store (the defaults are what the registry uses). */
export interface LocalRuvectorOptions {
  /** Namespaces smaller than this are searched exactly (default {@link DEFAULT_EXACT_BELOW}). */
  exactBelow?: number;
}

/** A local memory adapter. */
export function create(context: AdapterContext<'memory'>): LocalRuvectorMemory {
  return new LocalRuvectorMemory(context);
}

/**
 * Local vector memory. The catalogue (SQLite, WAL, synchronous=FULL) is the truth: a store is
 * acknowledged once it is committed there, and the in-memory vectors and the HNSW index are rebuilt
 * or repaired from it on connect. Data lives under `<stateDir>/memory/`.
 */
export class LocalRuvectorMemory implements MemoryAdapter {
  readonly dir: string;
  readonly dimension: number;
  #catalog: MemoryCatalog | undefined;
  #namespaces = new Map<string, MemoryNamespace>();
  #permanent: string | undefined;

  constructor(
    private readonly context: AdapterContext<'memory'>,
    private readonly options: LocalRuvectorOptions = {},
  ) {
    this.dir = path.join(context.paths.stateDir, 'memory');
    this.dimension = context.settings.dimension;
  }

  async connect(signal: AbortSignal): Promise<void> {
    // A reconnect lets the old index workers finish and let go of their files before reopening them.
    await this.#release();
    mkdirSync(path.join(this.dir, 'index'), { recursive: true, mode: 0o700 });
    const catalog = new MemoryCatalog(path.join(this.dir, 'catalog.sqlite'));
    const stored = catalog.claimDimension(this.dimension);
    if (stored !== this.dimension) {
      catalog.close();
      this.#permanent = `the local memory store at ${this.dir} holds ${stored}-dimensional vectors but integrations.memory.dimension is ${this.dimension}: set dimension = ${stored}, or move ${this.dir} aside to start an empty store`;
      return;
    }
    const namespaces = new Map<string, MemoryNamespace>();
    for (const { namespace, id, vector } of catalog.vectors()) {
      let ns = namespaces.get(namespace);
      if (!ns) namespaces.set(namespace, (ns = this.#newNamespace(namespace)));
      ns.matrix.set(id, normalized(vector));
    }
    signal.throwIfAborted();
    // Each index opens in its own worker; until one is ready its namespace answers exactly.
    for (const ns of namespaces.values()) ns.openIndex();
    this.#catalog = catalog;
    this.#namespaces = namespaces;
  }

  async health(_signal: AbortSignal): Promise<SlotHealth> {
    if (this.#permanent) return { state: 'degraded', reason: this.#permanent, permanent: true };
    if (!this.#catalog) return { state: 'degraded', reason: 'not-connected' };
    try {
      this.#catalog.ping();
      return { state: 'healthy' };
    } catch (err) {
      return { state: 'degraded', reason: `catalog-unavailable: ${(err as Error).message}` };
    }
  }

  async close(): Promise<void> {
    await this.#release();
  }

  async store(namespace: string, memory: NewMemory): Promise<{ id: string }> {
    checkNamespace(namespace);
    const id = checkId(memory.id);
    const text = checkText(memory.text);
    const metadataJson = checkMetadata(memory.metadata);
    const vector = memory.vector !== undefined ? checkVector(memory.vector, this.dimension) : embedText(text, this.dimension);
    const catalog = this.#connected();
    const target = this.#namespaceFor(namespace);
    return target.serialize(async () => {
      this.#backend(() => catalog.upsert({ namespace, id, text, metadataJson, vector, createdAt: new Date().toISOString() }));
      await target.put(id, vector);
      return { id };
    });
  }

  async search(namespace: string, query: MemoryQuery): Promise<MemoryHit[]> {
    checkNamespace(namespace);
    const k = checkK(query.k);
    const vector = this.#queryVector(query);
    const catalog = this.#connected();
    const ns = this.#namespaces.get(namespace);
    if (!ns) return [];
    const scored = await ns.search(normalized(vector), k);
    const rows = this.#backend(() =>
      catalog.getMany(
        namespace,
        scored.map((h) => h.id),
      ),
    );
    const hits: MemoryHit[] = [];
    for (const { id, score } of scored) {
      const row = rows.get(id);
      if (row) hits.push({ id, score, text: row.text, metadata: JSON.parse(row.metadata) as Record<string, unknown> });
    }
    return hits;
  }

  async retrieve(namespace: string, id: string): Promise<MemoryRecord> {
    checkNamespace(namespace);
    const catalog = this.#connected();
    const row = this.#backend(() => catalog.get(namespace, id));
    if (!row) throw new AdapterNotFoundError(`memory "${id}" in namespace "${namespace}"`);
    return toRecord(row);
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    checkNamespace(namespace);
    const catalog = this.#connected();
    const ns = this.#namespaces.get(namespace);
    if (!ns) return false;
    return ns.serialize(async () => {
      const gone = this.#backend(() => catalog.delete(namespace, id));
      if (gone) await ns.remove(id);
      return gone;
    });
  }

  async list(namespace: string, request: PageRequest): Promise<Page<MemorySummary>> {
    checkNamespace(namespace);
    const after = decodeCursor(request.cursor);
    const limit = pageLimit(request.limit);
    const catalog = this.#connected();
    return this.#backend(() => catalog.list(namespace, after, limit));
  }

  /** How a namespace is being searched (exact or index, last measured recall). */
  stats(namespace: string): NamespaceStats | undefined {
    return this.#namespaces.get(namespace)?.stats();
  }

  /** Resolves once a pending recall calibration of `namespace` has finished. */
  async settled(namespace: string): Promise<void> {
    await this.#namespaces.get(namespace)?.settled();
  }

  #queryVector(query: MemoryQuery): Float32Array {
    if (query.vector !== undefined) return checkVector(query.vector, this.dimension);
    if (typeof query.text === 'string') return embedText(checkText(query.text), this.dimension);
    throw new AdapterInputError('a search needs text or a vector');
  }

  // The namespace's index opens in the background (memory-namespace.ts): a first store does not wait for it.
  #namespaceFor(name: string): MemoryNamespace {
    let ns = this.#namespaces.get(name);
    if (!ns) {
      ns = this.#newNamespace(name);
      ns.openIndex();
      this.#namespaces.set(name, ns);
    }
    return ns;
  }

  #newNamespace(name: string): MemoryNamespace {
    const file = path.join(this.dir, 'index', `${Buffer.from(name).toString('hex')}.rvdb`);
    return new MemoryNamespace(name, file, {
      dimension: this.dimension,
      exactBelow: this.options.exactBelow ?? DEFAULT_EXACT_BELOW,
      logger: this.context.logger,
    });
  }

  #connected(): MemoryCatalog {
    if (this.#catalog) return this.#catalog;
    throw new AdapterUnavailableError('memory', this.#permanent ?? 'the local memory store is not open');
  }

  // Failures of the store itself (disk full, I/O error) are backend failures: the slot degrades.
  #backend<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof AdapterInputError || err instanceof AdapterNotFoundError) throw err;
      throw new AdapterUnavailableError('memory', (err as Error).message, { cause: err });
    }
  }

  async #release(): Promise<void> {
    this.#catalog?.close();
    this.#catalog = undefined;
    const namespaces = [...this.#namespaces.values()];
    this.#namespaces = new Map();
    this.#permanent = undefined;
    await Promise.all(namespaces.map((ns) => ns.close()));
  }
}
