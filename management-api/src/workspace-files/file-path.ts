// A workspace file path from a request: plain relative segments only, checked before anything touches the disk.
import { ApiError } from '../errors.js';
import { MAX_TREE_DEPTH } from './tree-depth.js';
import { nameBytes } from '../fs-names.js';

/** Longest path accepted, in bytes (PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Longest segment, in bytes (NAME_MAX). */
export const MAX_SEGMENT_BYTES = 255;

/**
 * The segments of `raw` (the part after `/files/`, already percent-decoded by the router, so an
 * encoded `..` arrives as `..`). The empty path is the workspace itself; one trailing `/` is
 * allowed (a directory). Refused: a leading `/`, `.` or `..` segments, empty segments, NUL and
 * other control characters, more levels than the box walks (tree-depth.ts). Refusing rather than normalising keeps one spelling per entry.
 */
export function parseFilePath(raw: string): string[] {
  if (raw === '' || raw === '/') return [];
  if (nameBytes(raw) > MAX_PATH_BYTES) throw pathRefused(raw, `it is longer than ${MAX_PATH_BYTES} bytes`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw pathRefused(raw, 'it holds a NUL or control character');
  if (raw.startsWith('/')) throw pathRefused(raw, 'it must be relative to the workspace');
  const trimmed = raw.endsWith('/') ? raw.slice(0, -1) : raw;
  const segments = trimmed.split('/');
  // A file may sit in the deepest directory the box walks, no deeper.
  if (segments.length > MAX_TREE_DEPTH + 1) throw pathRefused(raw, `it is nested more than ${MAX_TREE_DEPTH} directories deep`);
  for (const segment of segments) {
    if (segment === '') throw pathRefused(raw, 'it has an empty segment (//)');
    if (segment === '.' || segment === '..') throw pathRefused(raw, `it must not contain "${segment}" segments`);
    if (nameBytes(segment) > MAX_SEGMENT_BYTES) throw pathRefused(raw, `a segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return segments;
}

/** The 400 for a path refused. */
export function pathRefused(raw: string, why: string): ApiError {
  return new ApiError('ABX_ERR_FILE_PATH', `workspace path ${JSON.stringify(raw)} is refused: ${why}`);
}

/** The 400 for a path through a symbolic link. */
export function throughLink(shown: string): ApiError {
  return new ApiError('ABX_ERR_FILE_PATH', `workspace path "${shown}" passes through a symbolic link; links inside a workspace are never followed`);
}
