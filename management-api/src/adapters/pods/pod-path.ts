// Pod paths: one strict parser shared by every pods implementation, so traversal is refused before any I/O.
import { AdapterInputError } from '../../adapter-errors.js';

/** A validated pod path. */
export interface PodPath {
  /** Canonical form: `/` for the root, `/a/b` for a resource, `/a/b/` for a container. */
  path: string;
  /** The names between the slashes, root first excluded (`/a/b/` → `['a', 'b']`). */
  segments: string[];
  isContainer: boolean;
}

/**
 * Names starting with this are the adapter's own bookkeeping (metadata sidecars, temporary files)
 * and can never be addressed through the API.
 */
export const RESERVED_PREFIX = '.abx-';

const MAX_PATH_CHARS = 1024;
// 255 is the usual file name limit; the metadata sidecar's name adds a 10-byte prefix.
const MAX_SEGMENT_BYTES = 245;
// C0 controls and DEL: no legitimate file name needs them, and they confuse logs and terminals.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point, to refuse them in paths
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Parse and check `raw`. Refused with AdapterInputError: not starting with `/`, empty segments
 * (`//`), `.` and `..`, backslashes, control characters, reserved names, and segments whose
 * percent-decoded form is any of those or holds a `/` — a name like `%2e%2e` is harmless on a
 * local disk but a Solid server decodes it into `..`, so it is refused everywhere alike.
 */
export function parsePodPath(raw: string): PodPath {
  if (typeof raw !== 'string' || !raw.startsWith('/')) throw invalid(raw, 'it must start with "/"');
  if (raw.length > MAX_PATH_CHARS) throw invalid(raw, `it is longer than ${MAX_PATH_CHARS} characters`);
  if (raw === '/') return { path: '/', segments: [], isContainer: true };
  const isContainer = raw.endsWith('/');
  const segments = raw.slice(1, isContainer ? -1 : undefined).split('/');
  for (const segment of segments) checkSegment(raw, segment);
  return { path: raw, segments, isContainer };
}

/** Parse a path that must name a container (list). */
export function parseContainerPath(raw: string): PodPath {
  const parsed = parsePodPath(raw);
  if (!parsed.isContainer) throw invalid(raw, 'a container path ends with "/"');
  return parsed;
}

/** The container holding `path` (`/a/b` → `/a/`, `/a/` → `/`); undefined for the root. */
export function parentOf(path: PodPath): PodPath | undefined {
  if (path.segments.length === 0) return undefined;
  const segments = path.segments.slice(0, -1);
  return { path: segments.length ? `/${segments.join('/')}/` : '/', segments, isContainer: true };
}

/** The path of a direct member `name` of `container` (`name` ends in `/` for containers). */
export function memberPath(container: PodPath, name: string): string {
  return `${container.path}${name}`;
}

function checkSegment(raw: string, segment: string): void {
  if (segment === '') throw invalid(raw, 'it contains an empty segment ("//")');
  if (CONTROL.test(segment)) throw invalid(raw, 'it contains a control character');
  if (segment.includes('\\')) throw invalid(raw, 'it contains a backslash');
  if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) throw invalid(raw, `a segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
  for (const form of [segment, decodedOrSelf(segment), decodedOrSelf(decodedOrSelf(segment))]) {
    if (form === '.' || form === '..') throw invalid(raw, 'it contains a "." or ".." segment (literally or percent-encoded)');
    if (form.includes('/') || form.includes('\\') || form.includes('\u0000')) throw invalid(raw, 'a segment decodes to a path separator');
    if (form.toLowerCase().startsWith(RESERVED_PREFIX)) throw invalid(raw, `names starting with "${RESERVED_PREFIX}" are reserved`);
  }
}

function decodedOrSelf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: the name is taken literally.
    return segment;
  }
}

function invalid(raw: unknown, why: string): AdapterInputError {
  const shown = typeof raw === 'string' ? JSON.stringify(raw.length > 120 ? `${raw.slice(0, 120)}…` : raw) : typeof raw;
  return new AdapterInputError(`pod path ${shown} is not acceptable: ${why}`);
}
