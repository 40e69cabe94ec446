// Beads: create, the ready queue, and a board by status where a bead is claimed and closed.
import { useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote, Field, Loading, Unavailable } from '../components/common.js';
import type { Bead, BeadsTopic } from '../types.js';

const COLUMNS = [
  { status: 'open', label: 'Open' },
  { status: 'claimed', label: 'Claimed' },
  { status: 'closed', label: 'Closed' },
] as const;
const OUTCOMES = ['success', 'failure', 'cancelled'] as const;

/** The beads view, from the `beads` topic. */
export function BeadsView({ topic }: { topic: BeadsTopic | undefined }) {
  const [claimant, setClaimant] = useState('operator');
  const [outcome, setOutcome] = useState<(typeof OUTCOMES)[number]>('success');
  const [error, setError] = useState<string>();
  if (!topic) return <Loading what="the beads" />;
  if (!topic.available) return <Unavailable what="The beads slot" reason={topic.reason} />;

  const act = async (path: string, body: unknown) => {
    setError(undefined);
    try {
      await call('POST', path, body);
    } catch (err) {
      setError(describe(err));
    }
  };
  const claim = (b: Bead) => act(`/v1/beads/${encodeURIComponent(b.id)}/claim`, { claimant: claimant.trim() || 'operator' });
  const close = (b: Bead) => act(`/v1/beads/${encodeURIComponent(b.id)}/close`, { outcome });

  return (
    <>
      <CreateBead />
      <section aria-labelledby="h-ready" class="card">
        <h2 id="h-ready">Ready queue</h2>
        {topic.ready.length === 0 ? (
          <p class="muted">Nothing is ready.</p>
        ) : (
          <ol data-testid="ready-queue">
            {topic.ready.map((b) => (
              <li key={b.id}>
                {b.title} <span class="muted small">{b.id}</span>
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="h-board" class="card">
        <h2 id="h-board">Board</h2>
        <div class="toolbar">
          <Field label="Claim as">
            <input value={claimant} data-testid="claimant" onInput={(e) => setClaimant((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <Field label="Close with outcome">
            <select
              value={outcome}
              data-testid="outcome"
              onChange={(e) => setOutcome((e.currentTarget as HTMLSelectElement).value as (typeof OUTCOMES)[number])}
            >
              {OUTCOMES.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <ErrorNote error={error} testId="beads-error" />
        <div class="board">
          {COLUMNS.map((col) => {
            const items = topic.beads.filter((b) => b.status === col.status);
            return (
              <section key={col.status} class="column" aria-labelledby={`h-col-${col.status}`} data-testid={`column-${col.status}`}>
                <h3 id={`h-col-${col.status}`}>
                  {col.label} <span class="muted">({items.length})</span>
                </h3>
                <ul class="plain">
                  {items.map((b) => (
                    <li key={b.id} class="bead" data-testid={`bead-${b.id}`}>
                      <strong>{b.title}</strong>
                      <div class="muted small">
                        {b.kind ?? 'task'} · {b.id}
                        {b.claimedBy ? ` · claimed by ${b.claimedBy}` : ''}
                        {b.outcome ? ` · ${b.outcome}` : ''}
                      </div>
                      {b.status !== 'closed' ? (
                        <div class="actions">
                          {b.status === 'open' ? (
                            <button type="button" class="secondary" aria-label={`Claim ${b.title}`} data-testid="claim" onClick={() => void claim(b)}>
                              Claim
                            </button>
                          ) : null}
                          <button type="button" class="secondary" aria-label={`Close ${b.title}`} data-testid="close" onClick={() => void close(b)}>
                            Close
                          </button>
                        </div>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </section>
            );
          })}
        </div>
      </section>
    </>
  );
}

function CreateBead() {
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [kind, setKind] = useState<'task' | 'epic'>('task');
  const [error, setError] = useState<string>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await call('POST', '/v1/beads', { title: title.trim(), kind, ...(body.trim() ? { body: body.trim() } : {}) });
      setTitle('');
      setBody('');
    } catch (err) {
      setError(describe(err));
    }
  };

  return (
    <section aria-labelledby="h-new-bead" class="card">
      <h2 id="h-new-bead">New bead</h2>
      <form class="grid-form" onSubmit={(e) => void submit(e)} aria-labelledby="h-new-bead">
        <Field label="Title">
          <input required value={title} data-testid="bead-title" onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label="Kind">
          <select value={kind} data-testid="bead-kind" onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as 'task' | 'epic')}>
            <option value="task">task</option>
            <option value="epic">epic</option>
          </select>
        </Field>
        <Field label="Description">
          <textarea rows={2} value={body} data-testid="bead-body" onInput={(e) => setBody((e.currentTarget as HTMLTextAreaElement).value)} />
        </Field>
        <div>
          <button type="submit" data-testid="create-bead">
            Create
          </button>
        </div>
      </form>
      <ErrorNote error={error} testId="create-bead-error" />
    </section>
  );
}
