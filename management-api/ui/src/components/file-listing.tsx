// One directory's names as the dashboard shows them, an agent's workspace or a snapshot's: a directory opens on click, a file downloads, a link shows its target.
import { useEffect, useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { bytes, time } from '../format.js';
import type { WorkspaceEntry, WorkspaceListing } from '../types.js';

/** The URL of a path below the listed tree (a name that is not UTF-8 carried as its bytes: encodePathSegment). */
export type UrlOf = (segments: readonly string[]) => string;

/**
 * The listing at `url` (a `?list` URL), asked again whenever `url` or `reloads` changes; an answer
 * to a URL no longer shown is dropped.
 */
export function useListing(url: string, reloads = 0) {
  const [listing, setListing] = useState<WorkspaceListing>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let current = true;
    call<WorkspaceListing>('GET', url)
      .then((l) => {
        if (!current) return;
        setError(undefined);
        setListing(l);
      })
      .catch((err: unknown) => {
        if (!current) return;
        setListing(undefined);
        setError(describe(err));
      });
    return () => {
      current = false;
    };
  }, [url, reloads]);
  return { listing, error };
}

/** The names of one directory: a directory opens on click, a file downloads, a link shows its target. */
export function FileListing({
  urlOf,
  dir,
  listing,
  onOpen,
  testPrefix,
  whereTheRestIs = '',
}: {
  urlOf: UrlOf;
  dir: readonly string[];
  listing: WorkspaceListing;
  onOpen: (name: string) => void;
  testPrefix: string;
  /** Said after a listing cut at its limit: where the rest can be had. */
  whereTheRestIs?: string;
}) {
  if (listing.entries.length === 0)
    return (
      <p class="muted" data-testid={`${testPrefix}-empty`}>
        This directory is empty.
      </p>
    );
  return (
    <div class="table-wrap">
      <table data-testid={`${testPrefix}-list`}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Size</th>
            <th scope="col">Mode</th>
            <th scope="col">Modified</th>
          </tr>
        </thead>
        <tbody>
          {listing.entries.map((e) => (
            <tr key={e.name} data-testid="file-row">
              <td class="data">
                <EntryName urlOf={urlOf} dir={dir} entry={e} onOpen={onOpen} />
              </td>
              <td>{e.type === 'file' ? bytes(e.size) : '—'}</td>
              <td class="data">{e.mode}</td>
              <td>{time(e.mtime)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {listing.truncated ? (
        <p class="muted" data-testid={`${testPrefix}-truncated`}>
          Only the first {listing.entries.length.toLocaleString()} names (in sort order) are shown{whereTheRestIs}.
        </p>
      ) : null}
    </div>
  );
}

/** A name as shown: each byte that is not UTF-8 (listed as a lone surrogate) as U+FFFD; its URL still carries the byte. */
export const shownName = (name: string): string => name.replace(/[\uDC80-\uDCFF]/gu, '\uFFFD');

function EntryName({ urlOf, dir, entry, onOpen }: { urlOf: UrlOf; dir: readonly string[]; entry: WorkspaceEntry; onOpen: (name: string) => void }) {
  const url = urlOf([...dir, entry.name]);
  const shown = shownName(entry.name);
  if (entry.type === 'dir')
    return (
      <button type="button" class="link-button" onClick={() => onOpen(entry.name)} data-testid="open-dir">
        {shown}/
      </button>
    );
  if (entry.type === 'file')
    return (
      <a href={url} download={shown} data-testid="download-file">
        {shown}
      </a>
    );
  if (entry.type === 'symlink')
    return (
      <span>
        {entry.name} <span class="muted">→ {entry.target ?? '?'}</span>
      </span>
    );
  return (
    <span>
      {entry.name} <span class="muted">(a special file: not served)</span>
    </span>
  );
}
