// An agent's workspace in the dashboard: browse its directories, download a file or a directory as a tar, upload files or a whole folder into the directory shown.
import { useRef, useState } from 'preact/hooks';
import { describe, putBytesRetrying } from '../api.js';
import { ErrorNote } from '../components/common.js';
import { FileListing, shownName, useListing } from '../components/file-listing.js';
import { encodePathSegment } from '../../../src/client/encoding.js';
import { bytes } from '../format.js';
import type { Agent } from '../types.js';

/** The files URL of `segments` in agent `id`'s workspace (`query` appended); a name that is not UTF-8 is carried as its bytes. */
export function filesUrl(id: string, segments: readonly string[], query = ''): string {
  return `/v1/agents/${encodeURIComponent(id)}/files/${segments.map(encodePathSegment).join('/')}${query}`;
}

/**
 * What makes a file input pick a folder (every browser the dashboard supports knows it by this
 * name; the typings do not). Preact sets it as the element's property, a boolean: an empty
 * string, as the HTML attribute would be written, would turn it off.
 */
const FOLDER_PICKER: Record<string, boolean> = { webkitdirectory: true };

/** PUTs in flight at once: a folder of small files goes about as fast as the box answers, without one upload taking every connection. */
const UPLOADS_AT_ONCE = 4;

/**
 * The files of `agent`'s working directory, one directory at a time (the files API: a listing
 * of the first 10,000 names, downloads through the session cookie, uploads as PUTs with the
 * session's CSRF token). The listing is asked again after an upload and on Refresh; an ended
 * agent's files are still served.
 */
export function AgentFiles({ agent }: { agent: Agent }) {
  const [dir, setDir] = useState<readonly string[]>([]);
  const [status, setStatus] = useState<string>();
  const [uploading, setUploading] = useState(false);
  const [reloads, setReloads] = useState(0);
  // An upload's failure, apart from the listing's: the listing asked again after the upload would clear it.
  const [uploadError, setUploadError] = useState<string>();
  const picker = useRef<HTMLInputElement>(null);
  const folderPicker = useRef<HTMLInputElement>(null);
  // What an upload said belongs to the directory it went into.
  const show = (segments: readonly string[]) => {
    setStatus(undefined);
    setUploadError(undefined);
    setDir(segments);
  };

  const { listing, error } = useListing(filesUrl(agent.id, dir, '?list'), reloads);

  /**
   * Each chosen file PUT into the directory shown, UPLOADS_AT_ONCE at a time (each tried again
   * after the wait a 429 asks for), the progress said as they end. A folder's files carry their
   * path below the directory shown (`webkitRelativePath`, starting with the folder's own name):
   * its directories are made by the PUTs as they go; an empty one is not in the list a browser
   * gives, so it is not made. The first failure stops the files not yet sent; those in flight end.
   */
  const upload = async (files: FileList | null) => {
    const chosen = files ? [...files] : [];
    if (chosen.length === 0) return;
    setUploading(true);
    setUploadError(undefined);
    const done: Array<{ index: number; text: string }> = [];
    let next = 0;
    let failure: unknown;
    const sender = async () => {
      while (failure === undefined && next < chosen.length) {
        const index = next++;
        const file = chosen[index]!;
        const below = file.webkitRelativePath ? file.webkitRelativePath.split('/').filter((name) => name !== '') : [file.name];
        const shown = below.join('/');
        try {
          const made = (await putBytesRetrying(filesUrl(agent.id, [...dir, ...below]), file)) === 201;
          done.push({ index, text: `${shown} (${made ? 'new' : 'replaced'})` });
          setStatus(`Uploading: ${done.length} of ${chosen.length} done, the last ${shown} (${bytes(file.size)})…`);
        } catch (err) {
          failure ??= new Error(`${shown}: ${describe(err)}`);
        }
      }
    };
    setStatus(`Uploading ${chosen.length} ${chosen.length === 1 ? 'file' : 'files'}…`);
    await Promise.all(Array.from({ length: Math.min(UPLOADS_AT_ONCE, chosen.length) }, sender));
    // In the order chosen, whatever order they ended in.
    const uploaded = done.sort((a, b) => a.index - b.index).map((d) => d.text);
    try {
      if (failure !== undefined) {
        setStatus(undefined);
        setUploadError(`${(failure as Error).message}${uploaded.length > 0 ? ` (uploaded: ${uploaded.join(', ')})` : ''}`);
      } else setStatus(`Uploaded ${uploaded.join(', ')}.`);
    } finally {
      setUploading(false);
      if (picker.current) picker.current.value = '';
      if (folderPicker.current) folderPicker.current.value = '';
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
              {shownName(name)}
            </button>
          </span>
        ))}
      </nav>
      <div class="file-actions">
        <a href={tarUrl} download={`${shownName(dir.at(-1) ?? agent.name)}.tar`} data-testid="files-tar">
          Download this directory (.tar)
        </a>
        <label class="upload">
          Upload files here{' '}
          <input ref={picker} type="file" multiple disabled={uploading} data-testid="files-upload" onChange={(e) => void upload(e.currentTarget.files)} />
        </label>
        <label class="upload">
          Upload a folder here{' '}
          <input
            ref={folderPicker}
            type="file"
            multiple
            {...FOLDER_PICKER}
            disabled={uploading}
            data-testid="files-upload-folder"
            onChange={(e) => void upload(e.currentTarget.files)}
          />
        </label>
        <button type="button" class="secondary small-button" onClick={() => setReloads((n) => n + 1)} data-testid="files-refresh">
          Refresh
        </button>
      </div>
      <ErrorNote error={uploadError ?? error} testId="files-error" />
      {status ? (
        <p class="muted" role="status" data-testid="files-status">
          {status}
        </p>
      ) : null}
      {listing ? (
        <FileListing
          urlOf={(segments) => filesUrl(agent.id, segments)}
          dir={dir}
          listing={listing}
          onOpen={(name) => show([...dir, name])}
          testPrefix="files"
          whereTheRestIs=": download the directory as a tar for all of it"
        />
      ) : null}
    </section>
  );
}
