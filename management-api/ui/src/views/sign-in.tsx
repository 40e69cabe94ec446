// Sign-in: the API key is posted once for a session cookie and then forgotten (never stored, never in the URL).
import { useState } from 'preact/hooks';
import { describe, nostrSigner, signIn, signInWithNostr } from '../api.js';
import { ErrorNote, Field } from '../components/common.js';
import type { SessionInfo } from '../types.js';

/** The sign-in form. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (s: SessionInfo) => void; notice?: string | undefined }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  // Read once: NIP-07 extensions put their signer on window before the page's scripts run.
  const [signer] = useState(nostrSigner);

  const attempt = async (how: () => Promise<SessionInfo>) => {
    setBusy(true);
    setError(undefined);
    try {
      const session = await how();
      setKey('');
      onSignedIn(session);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void attempt(() => signIn(key.trim()));
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
      <form class="stack" onSubmit={submit} aria-label="Sign in">
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
      {signer ? (
        <div class="stack alt-sign-in">
          <p class="muted">
            Or, where the box lists your key in <code>mesh.operator_pubkeys</code>, sign with your Nostr extension (NIP-98):
          </p>
          <button type="button" class="secondary" disabled={busy} data-testid="sign-in-nostr" onClick={() => void attempt(() => signInWithNostr(signer))}>
            Sign in with Nostr
          </button>
        </div>
      ) : null}
      <ErrorNote error={error} testId="sign-in-error" />
    </main>
  );
}
