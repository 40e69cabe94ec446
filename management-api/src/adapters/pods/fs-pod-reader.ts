// Reading a local pod: representations of resources and containers, and their metadata, from the files on disk.
import type { Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { AdapterNotFoundError } from '../../adapter-errors.js';
import type { PodEntry, PodResource } from './pods-adapter.js';
import { CONTAINER_CONTENT_TYPE, FALLBACK_CONTENT_TYPE, containerTurtle, readMeta, strongEtag } from './fs-metadata.js';
import { openInside, walk } from './fs-guard.js';
import { RESERVED_PREFIX, type PodPath } from './pod-path.js';
import { compareNames } from './pod-page.js';

/** Runs a section while no write is in progress (the pod's write lock). */
export type Exclusive = <T>(section: () => Promise<T>) => Promise<T>;

/**
 * Reads the pod under `root` (a real path). Reads take no lock; when a sidecar does not match its
 * data file — a write is between its two renames, or one crashed there — the read is repeated
 * under the write lock, and only a crash leftover falls back to a computed ETag.
 */
export class FsPodReader {
  constructor(
    readonly root: string,
    private readonly exclusive: Exclusive,
  ) {}

  /** The representation at `p`; AdapterNotFoundError when there is none. */
  async get(p: PodPath, locked = false): Promise<PodResource> {
    const found = await walk(this.root, p.segments);
    const stat = found.stat;
    if (!stat || found.blockedAt || stat.isDirectory() !== p.isContainer) throw notFound(p);
    if (p.isContainer) {
      const body = Buffer.from(containerTurtle(await this.memberNames(found.fsPath)), 'utf8');
      return { ...containerEntry(p.path, body, stat), body };
    }
    const handle = await openInside(this.root, found.fsPath, p.path);
    let body: Buffer;
    let data: Stats;
    try {
      body = await handle.readFile();
      data = await handle.stat();
    } finally {
      await handle.close();
    }
    const meta = await readMeta(found.fsPath, data);
    if (!meta && !locked) return this.exclusive(() => this.get(p, true));
    const contentType = meta?.contentType ?? FALLBACK_CONTENT_TYPE;
    return {
      path: p.path,
      isContainer: false,
      contentType,
      etag: meta?.etag ?? strongEtag(contentType, body),
      size: body.length,
      modifiedAt: data.mtime.toISOString(),
      body,
    };
  }

  /** Metadata of `p` without its body, or undefined when absent. */
  async entry(p: PodPath, locked = false): Promise<PodEntry | undefined> {
    try {
      const { body: _body, ...entry } = await this.get(p, locked);
      return entry;
    } catch (err) {
      if (err instanceof AdapterNotFoundError) return undefined;
      throw err;
    }
  }

  /** Names of the direct members of the container directory `dir`, containers with a trailing `/`, in path order. */
  async memberNames(dir: string): Promise<string[]> {
    const names: string[] = [];
    for (const dirent of await readdir(dir, { withFileTypes: true })) {
      if (dirent.name.toLowerCase().startsWith(RESERVED_PREFIX)) continue;
      // Links, sockets and devices are not pod members: a link planted in the pod is neither
      // listed nor followed.
      if (dirent.isDirectory()) names.push(`${dirent.name}/`);
      else if (dirent.isFile()) names.push(dirent.name);
    }
    return names.sort(compareNames);
  }
}

/** Metadata of a container whose representation is `body`. */
function containerEntry(podPath: string, body: Buffer, stat: Stats): PodEntry {
  return {
    path: podPath,
    isContainer: true,
    contentType: CONTAINER_CONTENT_TYPE,
    etag: strongEtag(CONTAINER_CONTENT_TYPE, body),
    size: body.length,
    modifiedAt: stat.mtime.toISOString(),
  };
}

/** The not-found error for `p`. */
export function notFound(p: PodPath): AdapterNotFoundError {
  return new AdapterNotFoundError(`pod ${p.isContainer ? 'container' : 'resource'} "${p.path}"`);
}
