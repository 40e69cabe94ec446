// An agent's snapshots in the dashboard: take one, see what changed since the one before, browse and download its files and directories from the store, fork it into new agents, restore the ended agent's directory to it, delete it.
import { useEffect, useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { FileListing, shownName, useListing } from '../components/file-listing.js';
import { encodePathSegment } from '../../../src/client/encoding.js';
import { bytes, time } from '../format.js';
import { SnapshotFork } from './snapshot-fork.js';
import type { Agent, SnapshotDiff, SnapshotRecord } from '../types.js';

/** The URL of `segments` in snapshot `sid`'s files (`query` appended); a name that is not UTF-8 is carried as its bytes. */
export function snapshotFilesUrl(sid: string, segments: readonly string[], query = ''): string {
  return `/v1/snapshots/${encodeURIComponent(sid)}/files/${segments.map(encodePathSegment).join('/')}${query}`;
}

type Opened = { sid: string; view: 'changes'; from: string } | { sid: string; view: 'files' | 'fork' };

/** States of an agent whose directory may still change: a restore in place waits for its end. */
const LIVE_STATES = new Set(['starting', 'running']);

/**
 * The snapshots of `agent`'s working directory, newest first. A snapshot is taken while the agent
 * runs or after it ended; its changes are those since the agent's snapshot before it (the diff
 * route: records compared, nothing read); its files are read from the store, no agent forked.
 */
export function AgentSnapshots({ agent }: { agent: Agent }) {
  const [list, setList] = useState<SnapshotRecord[]>();
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [label, setLabel] = useState('');
  const [busy, setBusy] = useState(false);
  const [reloads, setReloads] = useState(0);
  const [opened, setOpened] = useState<Opened>();

  useEffect(() => {
    let current = true;
    call<{ snapshots: SnapshotRecord[] }>('GET', `/v1/snapshots?agent=${encodeURIComponent(agent.id)}`)
      .then((r) => {
        if (!current) return;
        setError(undefined);
        setList(r.snapshots);
      })
      .catch((err: unknown) => current && setError(describe(err)));
    return () => {
      current = false;
    };
  }, [agent.id, reloads]);

  const take = async () => {
    setBusy(true);
    setStatus('Taking a snapshot…');
    try {
      const { snapshot } = await call<{ snapshot: SnapshotRecord }>(
        'POST',
        `/v1/agents/${encodeURIComponent(agent.id)}/snapshots`,
        label.trim() ? { label: label.trim() } : {},
      );
      setStatus(
        `Snapshot ${snapshot.id}: ${snapshot.stats.files.toLocaleString()} files, ${bytes(snapshot.stats.bytes)}, ${bytes(snapshot.stats.addedBytes)} added to the store.`,
      );
      setLabel('');
      setError(undefined);
    } catch (err) {
      setStatus(undefined);
      setError(describe(err));
    } finally {
      setBusy(false);
      setReloads((n) => n + 1);
    }
  };

  const remove = async (sid: string) => {
    try {
      const freed = await call<{ freedBytes: number }>('DELETE', `/v1/snapshots/${encodeURIComponent(sid)}`);
      setStatus(`Snapshot ${sid} deleted: ${bytes(freed.freedBytes)} freed.`);
      if (opened?.sid === sid) setOpened(undefined);
    } catch (err) {
      setError(describe(err));
    } finally {
      setReloads((n) => n + 1);
    }
  };

  const restore = async (sid: string) => {
    setStatus(`Restoring ${sid}…`);
    try {
      const done = await call<{ files: number; bytes: number; warm?: boolean; cloned?: boolean }>(
        'POST',
        `/v1/agents/${encodeURIComponent(agent.id)}/restore`,
        { snapshot: sid },
      );
      setStatus(
        `${agent.name}'s directory restored to ${sid}: ${done.files.toLocaleString()} files, ${bytes(done.bytes)}${done.warm ? ' (a copy built ahead)' : done.cloned ? ' (a clone)' : ''}.`,
      );
      setError(undefined);
    } catch (err) {
      setStatus(undefined);
      setError(describe(err));
    }
  };

  const ended = !LIVE_STATES.has(agent.state);
  const newestFirst = [...(list ?? [])].reverse();
  return (
    <section aria-labelledby="h-snapshots" class="card" data-testid="agent-snapshots">
      <h2 id="h-snapshots">Snapshots</h2>
      <form
        class="file-actions"
        onSubmit={(e) => {
          e.preventDefault();
          void take();
        }}
      >
        <label>
          Label <input type="text" maxLength={200} value={label} onInput={(e) => setLabel(e.currentTarget.value)} data-testid="snapshot-label" />
        </label>
        <button type="submit" disabled={busy} data-testid="snapshot-take">
          Snapshot now
        </button>
      </form>
      <ErrorNote error={error} testId="snapshots-error" />
      {status ? (
        <p class="muted" role="status" data-testid="snapshots-status">
          {status}
        </p>
      ) : null}
      {list && list.length === 0 ? (
        <p class="muted" data-testid="snapshots-empty">
          No snapshot of this agent yet.
        </p>
      ) : null}
      {newestFirst.length > 0 ? (
        <div class="table-wrap">
          <table data-testid="snapshots-list">
            <thead>
              <tr>
                <th scope="col">Snapshot</th>
                <th scope="col">Taken</th>
                <th scope="col">Files</th>
                <th scope="col">Size</th>
                <th scope="col">Added</th>
                <th scope="col">Label</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {newestFirst.map((s, i) => {
                const before = newestFirst[i + 1];
                return (
                  <tr key={s.id} data-testid={`snapshot-${s.id}`}>
                    <td class="data">{s.id}</td>
                    <td>{time(s.createdAt)}</td>
                    <td>{s.stats.files.toLocaleString()}</td>
                    <td>{bytes(s.stats.bytes)}</td>
                    <td>{bytes(s.stats.addedBytes)}</td>
                    <td>{s.label ?? ''}</td>
                    <td>
                      <div class="actions">
                        {before ? (
                          <button
                            type="button"
                            class="secondary small-button"
                            aria-label={`Changes in ${s.id} since ${before.id}`}
                            data-testid="snapshot-changes"
                            onClick={() => setOpened({ sid: s.id, view: 'changes', from: before.id })}
                          >
                            Changes
                          </button>
                        ) : null}
                        <button
                          type="button"
                          class="secondary small-button"
                          aria-label={`Files of ${s.id}`}
                          data-testid="snapshot-files"
                          onClick={() => setOpened({ sid: s.id, view: 'files' })}
                        >
                          Files
                        </button>
                        <button
                          type="button"
                          class="secondary small-button"
                          aria-label={`Fork ${s.id} into new agents`}
                          data-testid="snapshot-fork-open"
                          onClick={() => setOpened({ sid: s.id, view: 'fork' })}
                        >
                          Fork
                        </button>
                        {ended ? (
                          <ConfirmButton
                            label="Restore"
                            question={`Replace ${agent.name}'s directory with ${s.id}? What it holds now is lost unless a snapshot has it.`}
                            confirmLabel="Restore it"
                            ariaLabel={`Restore ${agent.name}'s directory to ${s.id}`}
                            testId="snapshot-restore"
                            onConfirm={() => void restore(s.id)}
                          />
                        ) : null}
                        <ConfirmButton
                          label="Delete"
                          question={`Delete ${s.id}? Its chunks no other snapshot holds are freed.`}
                          confirmLabel="Delete it"
                          ariaLabel={`Delete ${s.id}`}
                          testId="snapshot-delete"
                          onConfirm={() => void remove(s.id)}
                        />
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {opened?.view === 'changes' ? <SnapshotChanges from={opened.from} to={opened.sid} key={`${opened.from}-${opened.sid}`} /> : null}
      {opened?.view === 'files' ? <SnapshotFiles sid={opened.sid} key={opened.sid} /> : null}
      {opened?.view === 'fork' ? <SnapshotFork agent={agent} sid={opened.sid} key={`fork-${opened.sid}`} onClose={() => setOpened(undefined)} /> : null}
    </section>
  );
}

const LETTER = { added: 'A', deleted: 'D', modified: 'M' } as const;

/** Changes one page of the list asks for: a long diff is read a page at a time, as the reader asks for more. */
const CHANGES_PAGE = 1000;

/** What changed from snapshot `from` to `to`: the counts, then a path a row, a page at a time ("Show more" fetches the next). */
function SnapshotChanges({ from, to }: { from: string; to: string }) {
  const [diff, setDiff] = useState<SnapshotDiff>();
  const [error, setError] = useState<string>();
  const [more, setMore] = useState<'idle' | 'loading'>('idle');
  const page = (cursor?: string) =>
    call<SnapshotDiff>(
      'GET',
      `/v1/snapshots/${encodeURIComponent(to)}/diff?from=${encodeURIComponent(from)}&limit=${CHANGES_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
  useEffect(() => {
    let current = true;
    page()
      .then((d) => current && setDiff(d))
      .catch((err: unknown) => current && setError(describe(err)));
    return () => {
      current = false;
    };
  }, [from, to]);
  if (error) return <ErrorNote error={error} testId="snapshot-changes-error" />;
  if (!diff) return null;
  const { added, deleted, modified } = diff.counts;
  const showMore = () => {
    setMore('loading');
    page(diff.nextCursor)
      .then((next) => setDiff({ ...next, changes: [...diff.changes, ...next.changes] }))
      .catch((err: unknown) => setError(describe(err)))
      .finally(() => setMore('idle'));
  };
  const total = added + deleted + modified;
  return (
    <div data-testid="snapshot-diff">
      <h3>
        Changes from {from} to {to}
      </h3>
      <p data-testid="snapshot-diff-counts">
        {added} added ({bytes(diff.addedBytes)}), {modified} modified, {deleted} deleted ({bytes(diff.deletedBytes)})
      </p>
      {diff.changes.length > 0 ? (
        <ul class="diff-list">
          {diff.changes.map((c) => (
            <li key={c.path} class={`diff-${c.change}`} data-testid="diff-row">
              <span class="data" title={c.change}>
                {LETTER[c.change]}
              </span>{' '}
              <span class="data">{c.type === 'dir' ? `${c.path}/` : c.path}</span>
              {c.change === 'modified' ? <span class="muted"> {(c.what ?? []).join(', ')}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {diff.truncated && diff.nextCursor ? (
        <p class="muted">
          {diff.changes.length.toLocaleString()} of {total.toLocaleString()} changes listed.{' '}
          <button type="button" data-testid="snapshot-diff-more" disabled={more === 'loading'} onClick={showMore}>
            {more === 'loading' ? 'Loading…' : `Show ${Math.min(CHANGES_PAGE, total - diff.changes.length).toLocaleString()} more`}
          </button>
        </p>
      ) : null}
    </div>
  );
}

/** A snapshot's files, one directory at a time, read from the store. */
function SnapshotFiles({ sid }: { sid: string }) {
  const [dir, setDir] = useState<readonly string[]>([]);
  const { listing, error } = useListing(snapshotFilesUrl(sid, dir, '?list'));
  const tarUrl = snapshotFilesUrl(sid, dir, '?format=tar');
  return (
    <div data-testid="snapshot-browser">
      <h3>Files of {sid}</h3>
      <nav aria-label="Snapshot directory shown" class="crumbs">
        <button type="button" class="secondary small-button" onClick={() => setDir([])}>
          {sid}
        </button>
        {dir.map((name, i) => (
          <span key={`${i}-${name}`}>
            {' / '}
            <button type="button" class="secondary small-button" onClick={() => setDir(dir.slice(0, i + 1))}>
              {shownName(name)}
            </button>
          </span>
        ))}
      </nav>
      <p>
        <a href={tarUrl} download={`${shownName(dir.at(-1) ?? sid)}.tar`} data-testid="snapshot-tar">
          Download this directory (.tar)
        </a>
      </p>
      <ErrorNote error={error} testId="snapshot-files-error" />
      {listing ? (
        <FileListing
          urlOf={(segments) => snapshotFilesUrl(sid, segments)}
          dir={dir}
          listing={listing}
          onOpen={(name) => setDir([...dir, name])}
          testPrefix="snapshot-files"
        />
      ) : null}
    </div>
  );
}
