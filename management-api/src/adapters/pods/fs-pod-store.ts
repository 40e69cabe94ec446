// The local pod engine: conditional, atomic writes and deletes, paged listings, on top of FsPodReader.
import { rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Page, PageRequest } from '../adapter.js';
import { AdapterConflictError, AdapterInputError } from '../../adapter-errors.js';
import type { PodConditions, PodEntry, PodPutOptions, PodResource } from './pods-adapter.js';
import { syncDirectory } from '../../durable-fs.js';
import { commit, discard, removeLeftovers, stage, type StagedFile } from './fs-atomic.js';
import { ensureContainers, walk } from './fs-guard.js';
import { metaJson, sidecarOf, strongEtag } from './fs-metadata.js';
import { FsPodReader, notFound } from './fs-pod-reader.js';
import { checkConditions, checkContentType } from './pod-conditions.js';
import { memberPath, parentOf, parseContainerPath, parsePodPath, type PodPath } from './pod-path.js';
import { pageOfNames, PODS_PAGER } from './pod-page.js';
import { SerialLock } from '../../serial-lock.js';

/**
 * A pod stored as files under `root` (a real path). Writes are serialised by one lock, which makes
 * each precondition check and the write it guards one step; reads run alongside them.
 */
export class FsPodStore {
  readonly #lock = new SerialLock();
  readonly #reader: FsPodReader;

  constructor(readonly root: string) {
    this.#reader = new FsPodReader(root, (section) => this.#lock.run(section));
  }

  /** See PodsAdapter.get. */
  get(rawPath: string): Promise<PodResource> {
    return this.#reader.get(parsePodPath(rawPath));
  }

  /** See PodsAdapter.put. */
  async put(rawPath: string, body: Uint8Array, options: PodPutOptions): Promise<{ etag: string; created: boolean }> {
    const p = parsePodPath(rawPath);
    checkContentType(options.contentType);
    if (p.isContainer && body.length > 0) throw new AdapterInputError(`"${p.path}" is a container path: a container is created with an empty body`);
    return this.#lock.run(() => (p.isContainer ? this.#putContainer(p, options) : this.#putResource(p, body, options)));
  }

  /** See PodsAdapter.delete. */
  async delete(rawPath: string, conditions: PodConditions = {}): Promise<void> {
    const p = parsePodPath(rawPath);
    const parent = parentOf(p);
    if (!parent) throw new AdapterConflictError('the pod root container cannot be deleted');
    await this.#lock.run(async () => {
      const current = await this.#reader.entry(p, true);
      checkConditions(p, current, conditions);
      if (!current) throw notFound(p);
      const found = await walk(this.root, p.segments);
      if (p.isContainer) {
        if ((await this.#reader.memberNames(found.fsPath)).length > 0)
          throw new AdapterConflictError(`container "${p.path}" is not empty; delete its members first`);
        await removeLeftovers(found.fsPath);
        await rmdir(found.fsPath);
      } else {
        await unlink(found.fsPath);
        await unlink(sidecarOf(found.fsPath)).catch(() => undefined);
      }
      await syncDirectory(path.dirname(found.fsPath));
    });
  }

  /** See PodsAdapter.list. Member names that are not valid pod names (made outside the API) are left out. */
  async list(rawPath: string, request: PageRequest): Promise<Page<PodEntry>> {
    const p = parseContainerPath(rawPath);
    PODS_PAGER.pageLimit(request.limit);
    const found = await walk(this.root, p.segments);
    if (!found.stat || found.blockedAt || !found.stat.isDirectory()) throw notFound(p);
    const valid = (await this.#reader.memberNames(found.fsPath)).filter((name) => isAddressable(memberPath(p, name)));
    const page = pageOfNames(valid, request);
    const items: PodEntry[] = [];
    for (const name of page.names) {
      // A member deleted since the directory was read is simply not on this page.
      const entry = await this.#reader.entry(parsePodPath(memberPath(p, name)));
      if (entry) items.push(entry);
    }
    return page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor };
  }

  async #putContainer(p: PodPath, conditions: PodConditions): Promise<{ etag: string; created: boolean }> {
    const found = await walk(this.root, p.segments);
    if (found.blockedAt) throw new AdapterConflictError(`"${found.blockedAt}" is a resource, so it cannot hold members`);
    if (found.stat && !found.stat.isDirectory())
      throw new AdapterConflictError(`a resource exists at "${p.path.slice(0, -1)}"; a container cannot have the same name`);
    const current = await this.#reader.entry(p, true);
    checkConditions(p, current, conditions);
    if (current) return { etag: current.etag, created: false };
    const created = await ensureContainers(this.root, p.segments);
    const entry = await this.#reader.entry(p, true);
    return { etag: entry?.etag ?? '', created };
  }

  async #putResource(p: PodPath, body: Uint8Array, options: PodPutOptions): Promise<{ etag: string; created: boolean }> {
    const found = await walk(this.root, p.segments);
    if (found.blockedAt) throw new AdapterConflictError(`"${found.blockedAt}" is a resource, so it cannot hold members`);
    if (found.stat?.isDirectory()) throw new AdapterConflictError(`a container exists at "${p.path}/"; a resource cannot have the same name`);
    const current = found.stat ? await this.#reader.entry(p, true) : undefined;
    checkConditions(p, current, options);
    await ensureContainers(this.root, parentOf(p)?.segments ?? []);
    const dir = path.dirname(found.fsPath);
    const etag = strongEtag(options.contentType, body);
    let data: StagedFile | undefined;
    let meta: StagedFile | undefined;
    try {
      data = await stage(dir, body);
      meta = await stage(dir, metaJson({ v: 1, contentType: options.contentType, etag, size: data.size, ino: data.ino }));
      // Data first: a crash between the renames leaves a sidecar naming the old inode, which
      // readers recognise as stale, never a sidecar describing bytes that are not there.
      await commit(dir, [
        { staged: data, target: found.fsPath },
        { staged: meta, target: sidecarOf(found.fsPath) },
      ]);
    } catch (err) {
      await discard(data);
      await discard(meta);
      throw err;
    }
    return { etag, created: current === undefined };
  }
}

function isAddressable(podPath: string): boolean {
  try {
    parsePodPath(podPath);
    return true;
  } catch {
    return false;
  }
}
