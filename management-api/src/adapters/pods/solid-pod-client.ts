// The pods operations spoken to a Solid (LDP) server: GET/PUT/DELETE with ETags and preconditions, listings.
import type { Page, PageRequest } from '../adapter.js';
import { AdapterConflictError, AdapterInputError, AdapterPreconditionError } from '../../adapter-errors.js';
import type { PodConditions, PodEntry, PodPutOptions, PodResource } from './pods-adapter.js';
import { checkContentType } from './pod-conditions.js';
import { memberPath, parseContainerPath, parsePodPath, type PodPath } from './pod-path.js';
import { pageOfNames, PODS_PAGER } from './pod-page.js';
import { containedNames } from './solid-listing.js';
import { drain, expectOk, requestBody, type SolidHttp } from './solid-http.js';

/** How many HEAD requests a listing page sends at once. */
const LIST_CONCURRENCY = 8;
const EPOCH = new Date(0).toISOString();

/** Pods operations against one Solid server. */
export class SolidPodClient {
  constructor(private readonly http: SolidHttp) {}

  /** See PodsAdapter.get. */
  async get(rawPath: string): Promise<PodResource> {
    const p = solidPath(rawPath);
    const response = await expectOk(
      await this.http.send(this.http.urlOf(p), { method: 'GET', headers: { accept: p.isContainer ? 'text/turtle' : '*/*' } }),
      'GET',
      p,
    );
    const body = new Uint8Array(await response.arrayBuffer());
    return { ...entryFrom(p, response, body.length), body };
  }

  /** See PodsAdapter.put. A container is created by a PUT of an empty Turtle body to its `/`-terminated URL. */
  async put(rawPath: string, body: Uint8Array, options: PodPutOptions): Promise<{ etag: string; created: boolean }> {
    const p = solidPath(rawPath);
    checkContentType(options.contentType);
    if (p.isContainer && body.length > 0) throw new AdapterInputError(`"${p.path}" is a container path: a container is created with an empty body`);
    const headers = { 'content-type': p.isContainer ? 'text/turtle' : options.contentType, ...conditionHeaders(options) };
    // Some servers (the Community Solid Server among them) create an absent resource despite
    // If-Match. Checking first narrows that to a delete racing this very request.
    if (options.ifMatch !== undefined && !(await this.#head(p))) {
      throw new AdapterPreconditionError(`If-Match ${options.ifMatch} failed: "${p.path}" does not exist`);
    }
    const response = await this.http.send(this.http.urlOf(p), { method: 'PUT', headers, body: p.isContainer ? new Uint8Array(0) : requestBody(body) });
    if (response.status === 409 && p.isContainer) {
      // Solid servers refuse to replace an existing container; for the interface that is "already there".
      await drain(response);
      const existing = await this.#head(p);
      if (existing?.isContainer) return { etag: existing.etag, created: false };
      throw new AdapterConflictError(`"${p.path}" cannot be created as a container: a resource is in the way`);
    }
    await expectOk(response, 'PUT', p);
    await drain(response);
    // Solid servers do not all return the new ETag with the PUT; ask for it.
    const etag = response.headers.get('etag') ?? (await this.#head(p))?.etag ?? '';
    return { etag, created: response.status === 201 };
  }

  /** See PodsAdapter.delete. */
  async delete(rawPath: string, conditions: PodConditions = {}): Promise<void> {
    const p = solidPath(rawPath);
    if (p.segments.length === 0) throw new AdapterConflictError('the pod root container cannot be deleted');
    const response = await this.http.send(this.http.urlOf(p), { method: 'DELETE', headers: conditionHeaders(conditions) });
    // If-Match on an absent resource is a failed precondition (RFC 9110 §13.1.1), whatever the server says.
    if (response.status === 404 && conditions.ifMatch !== undefined) {
      await drain(response);
      throw new AdapterPreconditionError(`If-Match ${conditions.ifMatch} failed: "${p.path}" does not exist`);
    }
    await expectOk(response, 'DELETE', p);
    await drain(response);
  }

  /** See PodsAdapter.list: members from the container's `ldp:contains`, then a HEAD of each member of the page. */
  async list(rawPath: string, request: PageRequest): Promise<Page<PodEntry>> {
    const p = solidPath(rawPath, true);
    PODS_PAGER.pageLimit(request.limit);
    const url = this.http.urlOf(p);
    const response = await expectOk(await this.http.send(url, { method: 'GET', headers: { accept: 'text/turtle' } }), 'GET', p);
    const names = containedNames(new URL(response.url || url.href), await response.text()).filter((n) => addressable(memberPath(p, n)));
    const page = pageOfNames(names, request);
    const entries = await mapLimited(page.names, LIST_CONCURRENCY, (name) => this.#head(parsePodPath(memberPath(p, name))));
    const items = entries.filter((e): e is PodEntry => e !== undefined);
    return page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor };
  }

  /** Metadata of `p`, or undefined when it does not exist. */
  async #head(p: PodPath): Promise<PodEntry | undefined> {
    const response = await this.http.send(this.http.urlOf(p), { method: 'HEAD' });
    if (response.status === 404) return undefined;
    await expectOk(response, 'HEAD', p);
    await drain(response);
    return entryFrom(p, response, Number(response.headers.get('content-length') ?? 0));
  }
}

/** Pod path rules plus the Solid ones: auxiliary resources (`.acl`, `.meta`) are not reachable through the pods slot. */
function solidPath(raw: string, container = false): PodPath {
  const p = container ? parseContainerPath(raw) : parsePodPath(raw);
  const last = p.segments[p.segments.length - 1]?.toLowerCase() ?? '';
  if (last.endsWith('.acl') || last.endsWith('.meta')) {
    throw new AdapterInputError(`pod path "${p.path}" names a Solid auxiliary resource (.acl / .meta); access control is not managed through the pods slot`);
  }
  return p;
}

function addressable(raw: string): boolean {
  try {
    solidPath(raw);
    return true;
  } catch {
    return false;
  }
}

function conditionHeaders(conditions: PodConditions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (conditions.ifMatch !== undefined) headers['if-match'] = conditions.ifMatch;
  if (conditions.ifNoneMatch !== undefined) {
    if (conditions.ifNoneMatch !== '*') throw new AdapterInputError('If-None-Match supports only "*" (create only if absent)');
    headers['if-none-match'] = '*';
  }
  return headers;
}

function entryFrom(p: PodPath, response: Response, size: number): PodEntry {
  const modified = response.headers.get('last-modified');
  const time = modified ? new Date(modified) : undefined;
  return {
    path: p.path,
    isContainer: p.isContainer,
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    etag: response.headers.get('etag') ?? '',
    size: Number.isFinite(size) ? size : 0,
    modifiedAt: time && !Number.isNaN(time.getTime()) ? time.toISOString() : EPOCH,
  };
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
