// One agent waiting for a person: its prompt and last screen lines, and an answer box whose text is typed into the agent (or handed to it).
import { useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote, Field } from '../components/common.js';
import type { InputRequest } from '../types.js';

/** A prompt asking for a secret: its answer box hides what is typed (the box records only its length). */
export function asksSecret(request: Pick<InputRequest, 'pattern' | 'prompt'>): boolean {
  return request.pattern === 'password' || /pass(word|phrase)|token|secret/i.test(request.prompt);
}

/** A request with its answer form; the card goes once the `inputs` topic no longer lists it. */
export function InputRequestCard({ request }: { request: InputRequest }) {
  const [text, setText] = useState('');
  const [enter, setEnter] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const secret = asksSecret(request);

  const send = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    if (text === '' && !enter) return setError('Type an answer, or leave "Press Enter after" on to send Enter alone.');
    setBusy(true);
    try {
      await call('POST', `/v1/input-requests/${encodeURIComponent(request.id)}`, { text, enter });
      setText('');
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  const where = request.reason === 'prompt' ? 'typed into its terminal' : 'handed to the agent';
  return (
    <article class="card input-request" aria-labelledby={`h-${request.id}`} data-testid={`input-${request.id}`}>
      <h3 id={`h-${request.id}`}>
        {request.agent} waits for input
        <span class="muted small"> ({request.reason === 'prompt' ? 'a prompt on its terminal' : 'it asked'})</span>
      </h3>
      <p class="input-prompt" data-testid="input-prompt">
        <code>{request.prompt}</code>
      </p>
      {request.lines.length ? (
        <figure class="screen-tail">
          <figcaption class="muted small">The last lines of its screen</figcaption>
          <pre class="screen-lines" data-testid="input-lines">
            {request.lines.join('\n')}
          </pre>
        </figure>
      ) : null}
      <form class="input-form" onSubmit={(e) => void send(e)}>
        <Field label={`Answer (${where})`}>
          {secret ? (
            <input
              type="password"
              autocomplete="off"
              maxLength={4096}
              value={text}
              data-testid="input-answer"
              onInput={(e) => setText(e.currentTarget.value)}
            />
          ) : (
            <input type="text" autocomplete="off" maxLength={4096} value={text} data-testid="input-answer" onInput={(e) => setText(e.currentTarget.value)} />
          )}
        </Field>
        <label class="check">
          <input type="checkbox" checked={enter} data-testid="input-enter" onChange={(e) => setEnter(e.currentTarget.checked)} /> Press Enter after
        </label>
        <button type="submit" disabled={busy} data-testid="input-send" aria-label={`Send the answer to ${request.agent}`}>
          Send
        </button>
      </form>
      <ErrorNote error={error} testId="input-error" />
    </article>
  );
}
