// Metadata sidecars of local pod resources (content type, ETag), strong ETags, and container representations.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESERVED_PREFIX } from './pod-path.js';

/** Prefix of a resource's sidecar, which sits next to it: `notes.md` → `.abx-meta.notes.md`. */
export const META_PREFIX = `${RESERVED_PREFIX}meta.`;

/** The content type of every container representation. */
export const CONTAINER_CONTENT_TYPE = 'text/turtle';

/** Used when a sidecar is missing or stale (a crash between the two renames of a write). */
export const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/** What a sidecar records. `ino` ties it to one version of the data file: renames keep inodes. */
export interface ResourceMeta {
  v: 1;
  contentType: string;
  etag: string;
  size: number;
  ino: number;
}

/** The sidecar path of the resource file `fsPath`. */
export function sidecarOf(fsPath: string): string {
  return path.join(path.dirname(fsPath), META_PREFIX + path.basename(fsPath));
}

/**
 * Strong ETag of a representation: a digest of its content type and bytes, so equal ETags mean
 * byte-identical representations (RFC 9110 §8.8.1) and any change gives a new one.
 */
export function strongEtag(contentType: string, body: Uint8Array | string): string {
  const hash = createHash('sha256').update(contentType, 'utf8').update('\n').update(body).digest('base64url');
  return `"${hash.slice(0, 32)}"`;
}

/** The sidecar of the data file whose lstat is `data`, or undefined when missing, unreadable or describing another version. */
export async function readMeta(fsPath: string, data: Stats): Promise<ResourceMeta | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(sidecarOf(fsPath), 'utf8'));
  } catch {
    return undefined;
  }
  const meta = parsed as Partial<ResourceMeta> | null;
  if (meta?.v !== 1 || typeof meta.contentType !== 'string' || typeof meta.etag !== 'string') return undefined;
  if (meta.ino !== data.ino || meta.size !== data.size) return undefined;
  return meta as ResourceMeta;
}

/** Serialised sidecar content. */
export function metaJson(meta: ResourceMeta): string {
  return `${JSON.stringify(meta)}\n`;
}

/**
 * The Turtle representation of a container: its type and its direct members, as a Solid
 * server answers, so both pods implementations return the same kind of document.
 */
export function containerTurtle(memberNames: readonly string[]): string {
  const lines = ['@prefix ldp: <http://www.w3.org/ns/ldp#>.', '', '<> a ldp:Container, ldp:BasicContainer, ldp:Resource.'];
  for (const name of memberNames) lines.push(`<> ldp:contains <${iriEscape(name)}>.`);
  return `${lines.join('\n')}\n`;
}

// Member names are arbitrary text; inside <…> only the IRI-safe form may appear.
function iriEscape(name: string): string {
  const container = name.endsWith('/');
  const base = container ? name.slice(0, -1) : name;
  return encodeURIComponent(base) + (container ? '/' : '');
}
