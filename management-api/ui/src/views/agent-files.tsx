// An agent's workspace in the dashboard: browse its directories, download a file or a directory as a tar, upload files into the directory shown.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, describe, putBytes } from '../api.js';
import { ErrorNote } from '../components/common.js';
import { bytes, time } from '../format.js';
import type { Agent, WorkspaceEntry, WorkspaceListing } from '../types.js';

/**
 * The files URL of `segments` in agent `id`'s workspace (`query` appended), or undefined when a
 * name holds a byte that is not UTF-8: the box lists such a byte as a lone surrogate, which no URL
 * can carry (encodeURIComponent throws), so the name is shown but cannot be opened from here.
 */
export function filesUrl(id: string, segments: readonly string[], query = ''): string | undefined {
  try {
    return `/v1/agents/${encodeURIComponent(id)}/files/${segments.map(encodeURIComponent).join('/')}${query}`;
  } catch {
    return undefined;
  }
}

/**
 * The files of `agent`'s working directory, one directory at a time (the files API: a listing
 * of the first 10,000 names, downloads through the session cookie, uploads as PUTs with the
 * session's CSRF token). The listing is asked again after an upload and on Refresh; an ended
 * agent's files are still served.
 */
export function AgentFiles({ agent }: { agent: Agent }) {
  const [dir, setDir] = useState<readonly string[]>([]);
  const [listing, setListing] = useState<WorkspaceListing>();
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [uploading, setUploading] = useState(false);
  const [reloads, setReloads] = useState(0);
  const picker = useRef<HTMLInputElement>(null);
  // What an upload said belongs to the directory it went into.
  const show = (segments: readonly string[]) => {
    setStatus(undefined);
    setDir(segments);
  };

  useEffect(() => {
    let current = true;
    const url = filesUrl(agent.id, dir, '?list');
    if (url === undefined) {
      setError('This directory name is not valid UTF-8: it cannot be opened from the dashboard.');
      return;
    }
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
  }, [agent.id, dir.join('/'), reloads]);

  /** Each chosen file PUT into the directory shown, one after another, the progress said as it goes. */
  const upload = async (files: FileList | null) => {
    const chosen = files ? [...files] : [];
    if (chosen.length === 0) return;
    setUploading(true);
    setError(undefined);
    const done: string[] = [];
    try {
      for (const [i, file] of chosen.entries()) {
        setStatus(`Uploading ${i + 1} of ${chosen.length}: ${file.name} (${bytes(file.size)})…`);
        const url = filesUrl(agent.id, [...dir, file.name]);
        if (url === undefined) throw new Error(`${file.name}: the name cannot be sent in a URL`);
        const made = (await putBytes(url, file)) === 201;
        done.push(`${file.name} (${made ? 'new' : 'replaced'})`);
      }
      setStatus(`Uploaded ${done.join(', ')}.`);
    } catch (err) {
      setStatus(undefined);
      setError(`${describe(err)}${done.length > 0 ? ` (uploaded before it: ${done.join(', ')})` : ''}`);
    } finally {
      setUploading(false);
      if (picker.current) picker.current.value = '';
      setReloads((n) => n + 1);
    }
  };

  const tarUrl = filesUrl(agent.id, dir, '?format=tar');
  return (
    <section aria-labelledby="h-files" class="card" data-testid="agent-files">
      <h2 id="h-files">Files</h2>
      <nav aria-label="Directory shown" class="crumbs" data-testid="files-path">
        <button type="button" class="secondary small-button" onClick={() => show([])}>
          workspace
        </button>
        {dir.map((name, i) => (
          <span key={`${i}-${name}`}>
            {' / '}
            <button type="button" class="secondary small-button" onClick={() => show(dir.slice(0, i + 1))}>
              {name}
            </button>
          </span>
        ))}
      </nav>
      <div class="file-actions">
        {tarUrl ? (
          <a href={tarUrl} download={`${dir.at(-1) ?? agent.name}.tar`} data-testid="files-tar">
            Download this directory (.tar)
          </a>
        ) : null}
        <label class="upload">
          Upload files here{' '}
          <input ref={picker} type="file" multiple disabled={uploading} data-testid="files-upload" onChange={(e) => void upload(e.currentTarget.files)} />
        </label>
        <button type="button" class="secondary small-button" onClick={() => setReloads((n) => n + 1)} data-testid="files-refresh">
          Refresh
        </button>
      </div>
      <ErrorNote error={error} testId="files-error" />
      {status ? (
        <p class="muted" role="status" data-testid="files-status">
          {status}
        </p>
      ) : null}
      {listing ? <Listing agent={agent} dir={dir} listing={listing} onOpen={(name) => show([...dir, name])} /> : null}
    </section>
  );
}

/** The names of one directory: a directory opens on click, a file downloads, a link shows its target. */
function Listing({ agent, dir, listing, onOpen }: { agent: Agent; dir: readonly string[]; listing: WorkspaceListing; onOpen: (name: string) => void }) {
  if (listing.entries.length === 0)
    return (
      <p class="muted" data-testid="files-empty">
        This directory is empty.
      </p>
    );
  return (
    <div class="table-wrap">
      <table data-testid="files-list">
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
                <EntryName agent={agent} dir={dir} entry={e} onOpen={onOpen} />
              </td>
              <td>{e.type === 'file' ? bytes(e.size) : '—'}</td>
              <td class="data">{e.mode}</td>
              <td>{time(e.mtime)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {listing.truncated ? (
        <p class="muted" data-testid="files-truncated">
          Only the first {listing.entries.length.toLocaleString()} names (in sort order) are shown: download the directory as a tar for all of it.
        </p>
      ) : null}
    </div>
  );
}

function EntryName({ agent, dir, entry, onOpen }: { agent: Agent; dir: readonly string[]; entry: WorkspaceEntry; onOpen: (name: string) => void }) {
  const url = filesUrl(agent.id, [...dir, entry.name]);
  // A byte that is not UTF-8 shows as U+FFFD: the name is listed, not reachable by URL.
  const shown = entry.name.replace(/[\uDC80-\uDCFF]/gu, '\uFFFD');
  if (url === undefined) return <span title="This name is not valid UTF-8: it cannot be opened from the dashboard">{shown} (not UTF-8)</span>;
  if (entry.type === 'dir')
    return (
      <button type="button" class="link-button" onClick={() => onOpen(entry.name)} data-testid="open-dir">
        {entry.name}/
      </button>
    );
  if (entry.type === 'file')
    return (
      <a href={url} download={entry.name} data-testid="download-file">
        {entry.name}
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
