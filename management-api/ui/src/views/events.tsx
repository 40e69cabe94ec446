// Events: the live feed from /v1/events/stream (any kind, its data field by field) with a kind filter and a start time, and a form to append one.
import { useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote, Field, Unavailable } from '../components/common.js';
import { EventData } from '../components/event-data.js';
import { time } from '../format.js';
import { useStream } from '../live.js';
import type { ErrorBody, SlotHealth, StoredEvent } from '../types.js';

// The feed keeps the newest events only, so a busy box does not grow the page without bound.
const MAX_EVENTS = 500;

/** The stream URL for a filter: repeated `kind` parameters, `since` as an ISO time. */
export function streamUrl(kinds: string[], since: string | undefined): string {
  const q = new URLSearchParams();
  for (const k of kinds) q.append('kind', k);
  if (since) q.set('since', since);
  const s = q.toString();
  return `/v1/events/stream${s ? `?${s}` : ''}`;
}

/** The events view; `slot` is the events slot as /health reports it. */
export function EventsView({ slot }: { slot: SlotHealth | undefined }) {
  // The feed's stream would only be refused: say why instead.
  if (slot?.impl === 'off') return <Unavailable what="The event log" reason="the events slot is off in the manifest" />;
  return <EventsFeed />;
}

function EventsFeed() {
  const [kindText, setKindText] = useState('');
  const [sinceText, setSinceText] = useState('');
  const [filter, setFilter] = useState<{ kinds: string[]; since?: string }>({ kinds: [] });
  const [events, setEvents] = useState<StoredEvent[]>([]);
  const [error, setError] = useState<string>();
  const [live, setLive] = useState(false);

  useStream(streamUrl(filter.kinds, filter.since), {
    events: {
      message: (data) => {
        const e = JSON.parse(data) as StoredEvent;
        setEvents((list) => [e, ...list].slice(0, MAX_EVENTS));
      },
      error: (data, source) => {
        source.close();
        const body = JSON.parse(data) as ErrorBody;
        setError(`The feed stopped: ${body.message} (${body.error})`);
      },
    },
    onOpen: () => setLive(true),
    onClosed: () => setError('The event feed was refused: check the filter (kinds are dotted lower-case names) or sign in again.'),
  });

  const apply = (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const kinds = kindText.split(/[\s,]+/).filter(Boolean);
    let since: string | undefined;
    if (sinceText) {
      const d = new Date(sinceText);
      if (Number.isNaN(d.getTime())) return setError('The start time is not a date and time.');
      since = d.toISOString();
    }
    // The same filter keeps the open stream (and what it showed) rather than reopening it.
    if (streamUrl(kinds, since) === streamUrl(filter.kinds, filter.since)) return;
    setEvents([]);
    setLive(false);
    setFilter({ kinds, ...(since ? { since } : {}) });
  };

  return (
    <>
      <section aria-labelledby="h-feed" class="card">
        <h2 id="h-feed">
          Event feed{' '}
          <span class="muted small" role="status" data-testid="events-live">
            {live ? 'Live' : 'Connecting…'}
          </span>
        </h2>
        <form class="toolbar" onSubmit={apply} aria-label="Filter the feed">
          <Field label="Kinds" hint="Comma separated; empty: every kind">
            <input value={kindText} data-testid="event-kinds" onInput={(e) => setKindText((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <Field label="Since" hint="Empty: only new events">
            <input
              type="datetime-local"
              step={1}
              value={sinceText}
              data-testid="event-since"
              onInput={(e) => setSinceText((e.currentTarget as HTMLInputElement).value)}
            />
          </Field>
          <div>
            <button type="submit" data-testid="apply-filter">
              Apply
            </button>
          </div>
        </form>
        <ErrorNote error={error} testId="events-error" />
        {events.length === 0 ? (
          <p class="muted" role="status">
            No events yet{filter.kinds.length ? ` of kind ${filter.kinds.join(', ')}` : ''}.
          </p>
        ) : null}
        <div role="log" aria-live="polite" aria-label="Events, newest first">
          <ol class="feed plain" data-testid="event-feed">
            {events.map((e) => (
              <li key={e.id} data-testid="event">
                <span class="muted small">{time(e.time)}</span> <strong data-testid="event-kind">{e.kind}</strong> <span class="muted">from {e.source}</span>
                <EventData data={e.data} />
              </li>
            ))}
          </ol>
        </div>
      </section>
      <AppendEvent />
    </>
  );
}

function AppendEvent() {
  const [kind, setKind] = useState('operator.note');
  const [data, setData] = useState('{}');
  const [error, setError] = useState<string>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(data || '{}');
    } catch {
      return setError('Data must be a JSON object, e.g. {"note": "hello"}.');
    }
    try {
      await call('POST', '/v1/events', { kind: kind.trim(), source: 'dashboard', data: parsed });
    } catch (err) {
      setError(describe(err));
    }
  };

  return (
    <section aria-labelledby="h-append" class="card">
      <h2 id="h-append">Append an event</h2>
      <form class="grid-form" onSubmit={(e) => void submit(e)} aria-labelledby="h-append">
        <Field label="Kind">
          <input required value={kind} data-testid="append-kind" onInput={(e) => setKind((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label="Data (JSON object)">
          <textarea rows={2} value={data} data-testid="append-data" onInput={(e) => setData((e.currentTarget as HTMLTextAreaElement).value)} />
        </Field>
        <div>
          <button type="submit" data-testid="append-event">
            Append
          </button>
        </div>
      </form>
      <ErrorNote error={error} testId="append-error" />
    </section>
  );
}
