// What a tar entry may be before anything is written: its name confined, its link kept inside, its type one of file, directory or link.
import { ApiError } from '../errors.js';
import { parseFilePath } from './file-path.js';
import { MAX_TREE_DEPTH } from './tree-depth.js';
import { sanitiseMode } from './file-write.js';

/** An entry accepted for extraction: where it goes, what it is, its sanitised mode. */
export type CheckedEntry =
  | { kind: 'root' }
  | { kind: 'dir'; segments: string[]; shown: string; mode: number }
  | { kind: 'file'; segments: string[]; shown: string; mode: number; size: number }
  | { kind: 'symlink'; segments: string[]; shown: string; target: string };

/** A header as tar-stream decodes it: `type` is null for a type flag the library does not name. */
export interface TarHeader {
  name: string;
  type: string | null;
  size?: number;
  mode?: number;
  linkname?: string | null;
  /** The entry's pax records (a record of strings), when it has any. */
  pax?: unknown;
}

/**
 * Judge one header as tar-stream decoded it (pax and GNU long names already applied). `base` is
 * where the upload lands, in workspace segments: link targets are judged from there. Refused:
 * absolute names, `..` and control characters; hard links, devices, FIFOs and every type the
 * library does not name; links pointing outside; a directory deeper than the box walks
 * (tree-depth.ts); a directory carrying data (tar-stream would read
 * that data as further headers, where another tar would skip it: one reading for every reader).
 */
export function checkEntry(header: TarHeader, base: readonly string[]): CheckedEntry {
  const segments = entryPath(header.name);
  const shown = segments.join('/');
  const size = header.size ?? 0;
  if (segments.length === 0) {
    if (header.type !== 'directory') throw tarRefused(`entry ${JSON.stringify(header.name)} names the target directory itself but is not a directory`);
    return { kind: 'root' };
  }
  // The deepest directory the entry makes (itself, or its parents): no deeper than the box walks.
  if (base.length + segments.length - (header.type === 'directory' ? 0 : 1) > MAX_TREE_DEPTH)
    throw tarRefused(`"${shown}" would be nested more than ${MAX_TREE_DEPTH} directories deep in the workspace, deeper than the box walks`);
  const mode = header.mode ?? 0;
  if (!Number.isInteger(mode) || mode < 0) throw tarRefused(`"${shown}" has a malformed mode`);
  switch (header.type) {
    case 'directory':
      if (size !== 0) throw tarRefused(`"${shown}" is a directory entry carrying ${size} bytes of data`);
      return { kind: 'dir', segments, shown, mode: sanitiseMode(mode) };
    case 'file':
    case 'contiguous-file':
      if (!Number.isSafeInteger(size) || size < 0) throw tarRefused(`"${shown}" has a malformed size`);
      // GNU tar's pax sparse form: the data is a map of the holes, then the data between them, under
      // a made-up name. Written as it came, the file would hold that map instead of its bytes.
      if (sparseName(header.pax) !== undefined)
        throw tarRefused(
          `"${sparseName(header.pax) || shown}" is a sparse file as \`tar -S\` packs it, which is not extracted: pack the tree without -S (--sparse), its holes as zeros`,
        );
      return { kind: 'file', segments, shown, mode: sanitiseMode(mode), size };
    case 'symlink': {
      const target = header.linkname ?? '';
      checkLinkTarget(base, segments, target, shown);
      return { kind: 'symlink', segments, shown, target };
    }
    case 'link':
      throw tarRefused(`"${shown}" is a hard link (to ${JSON.stringify(header.linkname)}); hard links are not extracted: pack the file itself`);
    case 'character-device':
    case 'block-device':
      throw tarRefused(`"${shown}" is a device; devices are never extracted`);
    case 'fifo':
      throw tarRefused(`"${shown}" is a FIFO; FIFOs are never extracted`);
    default:
      throw tarRefused(
        header.type === null
          ? `"${shown}" has an entry type this box does not read (GNU tar's sparse files, --format=gnu with -S, among them), which is not extracted: files, directories and links only`
          : `"${shown}" has entry type ${JSON.stringify(header.type)}, which is not extracted (files, directories and links only)`,
      );
  }
}

/** For an entry GNU tar packed sparse (pax records GNU.sparse.*): its real name, or '' when it gives none; undefined for any other entry. */
function sparseName(pax: unknown): string | undefined {
  if (typeof pax !== 'object' || pax === null) return undefined;
  const records = pax as Record<string, unknown>;
  if (!Object.keys(records).some((k) => k.startsWith('GNU.sparse.'))) return undefined;
  const name = records['GNU.sparse.name'];
  return typeof name === 'string' ? name : '';
}

/** An entry's name as workspace segments: a leading "./" (or several) dropped; absolute names, `..` and control characters refused. */
function entryPath(name: string): string[] {
  let rest = name;
  while (rest.startsWith('./')) rest = rest.slice(2);
  if (rest === '.' || rest === '') return [];
  if (name.startsWith('/')) throw tarRefused(`entry ${JSON.stringify(name)} has an absolute name`);
  try {
    return parseFilePath(rest);
  } catch (err) {
    throw tarRefused(`entry ${JSON.stringify(name)}: ${(err as Error).message}`);
  }
}

/**
 * A link's target must be relative and, read from the link's own directory, stay inside the
 * workspace (the copy, for a download). Its `..` must all come first: a `..` after a name climbs
 * from wherever that name leads, and the name may be a link (`b -> a/..` with `a -> ../..` is two
 * levels above `a`'s directory, not `b`'s). Climbs first go up real directories (an entry's parents
 * are directories of the upload, opened without following links), and each link of the tar is held
 * to the same rule, so a chain of them never leaves either. `.` and empty parts count for nothing.
 */
function checkLinkTarget(base: readonly string[], segments: readonly string[], target: string, shown: string): void {
  if (target === '' || target.includes('\0')) throw tarRefused(`link "${shown}" has an empty target`);
  if (target.startsWith('/')) throw tarRefused(`link "${shown}" points to an absolute path (${JSON.stringify(target)}); links must stay inside the workspace`);
  const parts = target.split('/').filter((part) => part !== '.' && part !== '');
  const climbs = parts.findIndex((part) => part !== '..');
  const up = climbs === -1 ? parts.length : climbs;
  if (parts.indexOf('..', up) !== -1)
    throw tarRefused(
      `link "${shown}" has a ".." after a name (${JSON.stringify(target)}), which climbs from wherever that name leads, perhaps out of the workspace; write the target with its ".." first (e.g. "../x" for "a/../../x")`,
    );
  // Counted from the link's directory: a climb out and back in ("../../x/y") is refused too, as it names what is outside.
  if (up > base.length + segments.length - 1) throw tarRefused(`link "${shown}" points outside the workspace (${JSON.stringify(target)})`);
}

/** The refusal of a whole upload. */
export function tarRefused(why: string): ApiError {
  return new ApiError('ABX_ERR_TAR_REFUSED', `the tar was refused, nothing was written: ${why}`);
}
