// An agent's workspace in the dashboard: browse its directories, download a file or a directory as a tar, upload files or a whole folder into the directory shown.
import { useRef, useState } from 'preact/hooks';
import { describe, putBytes } from '../api.js';
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
   * Each chosen file PUT into the directory shown, one after another, the progress said as it
   * goes. A folder's files carry their path below the directory shown (`webkitRelativePath`,
   * starting with the folder's own name): its directories are made by the PUTs as they go; an
   * empty one is not in the list a browser gives, so it is not made.
   */
  const upload = async (files: FileList | null) => {
    const chosen = files ? [...files] : [];
    if (chosen.length === 0) return;
    setUploading(true);
    setUploadError(undefined);
    const done: string[] = [];
    try {
      for (const [i, file] of chosen.entries()) {
        const below = file.webkitRelativePath ? file.webkitRelativePath.split('/').filter((name) => name !== '') : [file.name];
        const shown = below.join('/');
        setStatus(`Uploading ${i + 1} of ${chosen.length}: ${shown} (${bytes(file.size)})…`);
        const url = filesUrl(agent.id, [...dir, ...below]);
        const made = (await putBytes(url, file)) === 201;
        done.push(`${shown} (${made ? 'new' : 'replaced'})`);
      }
      setStatus(`Uploaded ${done.join(', ')}.`);
    } catch (err) {
      setStatus(undefined);
      setUploadError(`${describe(err)}${done.length > 0 ? ` (uploaded before it: ${done.join(', ')})` : ''}`);
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
