// An event's data for any kind: its top-level fields as name and value, nested values as compact JSON, all as text.
/** How one value reads: strings as they are, everything else as JSON. */
export function fieldText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/**
 * `data` of an event whose kind the page need not know (audit events, an operator's notes, what
 * agents append): one name and value per field. Preact sets every value as text, so data an
 * agent wrote cannot become markup.
 */
export function EventData({ data }: { data: unknown }) {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return <code class="data">{fieldText(data)}</code>;
  }
  const entries = Object.entries(data as Record<string, unknown>);
  if (entries.length === 0) return <span class="muted small">no data</span>;
  return (
    <dl class="event-data" data-testid="event-data">
      {entries.map(([name, value]) => (
        <div key={name} class="event-field">
          <dt>{name}</dt>
          <dd>
            <code>{fieldText(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
