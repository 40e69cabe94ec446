// Memory: search one namespace by text (the box's embedder turns the text into a vector).
import { useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote, Field, Unavailable } from '../components/common.js';
import type { SlotHealth } from '../types.js';

interface Hit {
  id: string;
  score: number;
  text?: string;
  metadata?: Record<string, unknown>;
}

/** The memory view; `slot` is the memory slot as /health reports it. */
export function MemoryView({ slot }: { slot: SlotHealth | undefined }) {
  const [namespace, setNamespace] = useState('default');
  const [text, setText] = useState('');
  const [k, setK] = useState(5);
  const [hits, setHits] = useState<Hit[]>();
  const [error, setError] = useState<string>();
  if (slot?.impl === 'off') return <Unavailable what="Memory" reason="the memory slot is off in the manifest" />;

  const search = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      const res = await call<{ hits: Hit[] }>('POST', `/v1/memory/${encodeURIComponent(namespace.trim())}/search`, { text, k });
      setHits(res.hits);
    } catch (err) {
      setHits(undefined);
      setError(describe(err));
    }
  };

  return (
    <section aria-labelledby="h-memory" class="card">
      <h2 id="h-memory">Search memory</h2>
      <form class="grid-form" onSubmit={(e) => void search(e)} aria-labelledby="h-memory">
        <Field label="Namespace">
          <input required value={namespace} data-testid="memory-namespace" onInput={(e) => setNamespace((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label="Text">
          <input required value={text} data-testid="memory-text" onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label="Results">
          <input
            type="number"
            min={1}
            max={100}
            value={k}
            data-testid="memory-k"
            onInput={(e) => setK(Number((e.currentTarget as HTMLInputElement).value) || 1)}
          />
        </Field>
        <div>
          <button type="submit" data-testid="memory-search">
            Search
          </button>
        </div>
      </form>
      <ErrorNote error={error} testId="memory-error" />
      {hits === undefined ? null : hits.length === 0 ? (
        <p class="muted" role="status" data-testid="memory-empty">
          No memory in this namespace matches.
        </p>
      ) : (
        <ol class="plain" data-testid="memory-hits">
          {hits.map((h) => (
            <li key={h.id} class="hit">
              <span class="score">{h.score.toFixed(3)}</span> {h.text ?? <span class="muted">(no text)</span>} <span class="muted small">{h.id}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
