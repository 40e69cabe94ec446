// What `agentbox snapshot diff` and `agentbox snapshot files` print: the records the API answers with, as lines people read.
import { formatBytes } from './snapshot-format.js';

/** GET /v1/snapshots/{to}/diff?from= as it answers. */
export interface DiffRecord {
  from: string;
  to: string;
  counts: { added: number; deleted: number; modified: number };
  addedBytes: number;
  deletedBytes: number;
  changes: Array<{ path: string; change: 'added' | 'deleted' | 'modified'; type: string; what?: string[]; size?: number; sizeBefore?: number }>;
  truncated: boolean;
  /** When truncated: the cursor of the next page. */
  nextCursor?: string;
}

/** GET /v1/snapshots/{sid}/files/{dir}?list as it answers. */
export interface ListingRecord {
  path: string;
  entries: Array<{ name: string; type: string; size: number; mode: string; mtime: string; target?: string }>;
  truncated: boolean;
}

const LETTER = { added: 'A', deleted: 'D', modified: 'M' } as const;

/** A control character, or a byte of a name that is not UTF-8 (the box lists it as a lone surrogate, U+DC00 plus the byte). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is found
const UNPRINTABLE = /[\u0000-\u001f\u007f\uDC80-\uDCFF]/u;

/**
 * A name (or a link's target) as a line shows it: itself, unless it holds a control character or a
 * byte that is not UTF-8; then quoted as bash's $'…' (as `ls` quotes such names), so a tab or a
 * newline never breaks the line and the bytes can be pasted back into a shell.
 */
export function shownName(name: string): string {
  if (!UNPRINTABLE.test(name)) return name;
  const escapes: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', "'": "\\'", '\\': '\\\\' };
  let out = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    const byte = cp >= 0xdc80 && cp <= 0xdcff ? cp - 0xdc00 : cp < 0x20 || cp === 0x7f ? cp : undefined;
    out += escapes[ch] ?? (byte !== undefined ? `\\x${byte.toString(16).padStart(2, '0')}` : ch);
  }
  return `$'${out}'`;
}

/** A change a line (`M  src/app.ts  content: 1.2 KiB → 1.3 KiB`), then the counts. */
export function formatDiff(d: DiffRecord): string {
  const lines = d.changes.map((c) => {
    const shown = c.type === 'dir' ? `${shownName(c.path)}/` : shownName(c.path);
    let note = '';
    if (c.change === 'modified') {
      const sizes =
        c.sizeBefore !== undefined && c.size !== undefined && c.sizeBefore !== c.size ? `: ${formatBytes(c.sizeBefore)} → ${formatBytes(c.size)}` : '';
      note = `${(c.what ?? []).join(', ')}${c.what?.includes('type') ? ` (now a ${c.type === 'dir' ? 'directory' : c.type === 'symlink' ? 'link' : 'file'})` : ''}${sizes}`;
    } else if (c.size !== undefined) note = formatBytes(c.size);
    return `${LETTER[c.change]}  ${shown}${note ? `  ${note}` : ''}`;
  });
  const listed = d.changes.length;
  const total = d.counts.added + d.counts.deleted + d.counts.modified;
  if (d.truncated) lines.push(`… ${total - listed} more changes not listed (--limit)`);
  const summary =
    total === 0
      ? `no changes from ${d.from} to ${d.to}`
      : `${d.counts.added} added (${formatBytes(d.addedBytes)}), ${d.counts.modified} modified, ${d.counts.deleted} deleted (${formatBytes(d.deletedBytes)}) from ${d.from} to ${d.to}`;
  return [...lines, summary].join('\n');
}

/** `ls -l` of a snapshot's directory: mode, size, modification time, name (a link with its target). */
export function formatListing(l: ListingRecord): string {
  const rows = l.entries.map((e) => {
    const kind = e.type === 'dir' ? 'd' : e.type === 'symlink' ? 'l' : '-';
    const name = e.type === 'dir' ? `${shownName(e.name)}/` : e.type === 'symlink' ? `${shownName(e.name)} -> ${shownName(e.target ?? '')}` : shownName(e.name);
    return [`${kind}${rwx(e.mode)}`, e.type === 'file' ? formatBytes(e.size) : '', e.mtime.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), name];
  });
  const widths = [0, 1, 2].map((i) => Math.max(0, ...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => [r[0]!.padEnd(widths[0]!), r[1]!.padStart(widths[1]!), r[2]!.padEnd(widths[2]!), r[3]].join('  '));
  if (l.truncated) lines.push(`… cut at ${l.entries.length} entries (the first by name)`);
  return lines.length ? lines.join('\n') : `(${l.path || '.'} is empty)`;
}

/** "0754" → "rwxr-xr--". */
function rwx(mode: string): string {
  const bits = Number.parseInt(mode, 8);
  return [6, 3, 0].map((shift) => `${bits & (4 << shift) ? 'r' : '-'}${bits & (2 << shift) ? 'w' : '-'}${bits & (1 << shift) ? 'x' : '-'}`).join('');
}
