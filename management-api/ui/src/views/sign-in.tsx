// Sign-in: the API key is posted once for a session cookie and then forgotten (never stored, never in the URL).
import { useState } from 'preact/hooks';
import { describe, signIn } from '../api.js';
import { ErrorNote, Field } from '../components/common.js';
import type { SessionInfo } from '../types.js';

/** The sign-in form. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: SessionInfo) => void; notice?: string | undefined }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await signIn(key.trim());
      setKey('');
      onSignedIn(session);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="content narrow" data-testid="view-sign-in">
      <h2>Sign in</h2>
      <p class="muted">
        Use the box's management API key (the file <code>secrets/api-key</code> on its state volume). It is exchanged for a session that ends after 8 hours or
        when you sign out; the page keeps no copy.
      </p>
      {notice ? (
        <p class="note" role="status" data-testid="sign-in-notice">
          {notice}
        </p>
      ) : null}
      <form class="stack" onSubmit={(e) => void submit(e)} aria-label="Sign in">
        <Field label="API key">
          <input
            type="password"
            name="apiKey"
            autoComplete="off"
            required
            value={key}
            data-testid="api-key"
            onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <button type="submit" disabled={busy || key.trim() === ''} data-testid="sign-in">
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNote error={error} testId="sign-in-error" />
    </main>
  );
}
