// Small shared pieces: error and notice boxes, the unavailable-slot note, a labelled field.
import { cloneElement, type VNode } from 'preact';
import { useId } from 'preact/hooks';

/** An API error as a readable alert (nothing when there is none). */
export function ErrorNote({ error, testId }: { error: string | undefined; testId?: string }) {
  if (!error) return null;
  return (
    <p class="note error" role="alert" data-testid={testId ?? 'error'}>
      {error}
    </p>
  );
}

/** Shown instead of a view whose slot is off or not usable, with the server's reason. */
export function Unavailable({ what, reason }: { what: string; reason?: string | undefined }) {
  return (
    <p class="note muted" data-testid="unavailable">
      {what} is not available on this box{reason ? `: ${reason}` : '.'}
    </p>
  );
}

/** Waiting for the first message of a live topic. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="note muted" role="status">
      Waiting for {what}…
    </p>
  );
}

/** A label above its control: the control is the one child, given an id the label's `for` names. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: VNode<{ id?: string }> }) {
  const id = useId();
  return (
    <label class="field" for={id}>
      <span class="field-label">{label}</span>
      {cloneElement(children, { id })}
      {hint ? <span class="field-hint">{hint}</span> : null}
    </label>
  );
}

/** A state word as a coloured badge (the colour is a hint; the word carries the meaning). */
export function Badge({ value, testId }: { value: string; testId?: string }) {
  return (
    <span class={`badge badge-${value.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`} data-testid={testId}>
      {value}
    </span>
  );
}
