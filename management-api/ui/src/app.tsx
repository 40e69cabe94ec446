// The shell: learns whether a session exists, shows the sign-in or the signed-in dashboard, and signs out.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, currentSession, describe, onSessionLost, setCsrfToken, signOut } from './api.js';
import { ErrorNote } from './components/common.js';
import { Dashboard } from './dashboard.js';
import { time } from './format.js';
import type { SessionInfo } from './types.js';
import { SignIn } from './views/sign-in.js';

type Phase = { kind: 'checking' } | { kind: 'signed-out'; notice?: string } | { kind: 'signed-in'; session: SessionInfo };

/** The whole page. */
export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });
  const [error, setError] = useState<string>();
  // Set from the click on Sign out until its answer: the stream ends when the session is revoked,
  // often before the sign-out's own answer arrives, and that end is not a session lost.
  const signingOut = useRef(false);

  const enter = (session: SessionInfo) => {
    setCsrfToken(session.csrfToken);
    setError(undefined);
    setPhase({ kind: 'signed-in', session });
  };
  // Only a signed-in page can lose its session, and not one signing out: a sign-out keeps its own
  // notice, whichever arrives first, its answer or the stream's `session-ended`.
  const lost = () => {
    if (signingOut.current) return;
    setCsrfToken('');
    setPhase((p) => (p.kind === 'signed-in' ? { kind: 'signed-out', notice: 'Your session ended. Sign in again.' } : p));
  };

  useEffect(() => {
    onSessionLost(lost);
    currentSession()
      .then((s) => (s ? enter(s) : setPhase({ kind: 'signed-out' })))
      .catch((err: unknown) => {
        setError(describe(err));
        setPhase({ kind: 'signed-out' });
      });
  }, []);

  const leave = async () => {
    signingOut.current = true;
    try {
      await signOut();
      setCsrfToken('');
      setPhase({ kind: 'signed-out', notice: 'Signed out.' });
    } catch (err) {
      signingOut.current = false;
      // A session that already ended (expired, revoked, API restarted) is as signed out as can be.
      if (err instanceof ApiProblem && err.status === 401) lost();
      else setError(describe(err));
    } finally {
      signingOut.current = false;
    }
  };

  return (
    <>
      <header class="topbar">
        <h1 class="brand">Agentbox</h1>
        {phase.kind === 'signed-in' ? (
          <div class="session">
            <span class="small" data-testid="session-info">
              {phase.session.via === 'nip98' ? 'Signed in with a Nostr key' : 'Signed in with the API key'}, until {time(phase.session.expiresAt)}
            </span>
            <button type="button" class="secondary" data-testid="sign-out" onClick={() => void leave()}>
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      <ErrorNote error={error} testId="app-error" />
      {phase.kind === 'checking' ? (
        <main class="content">
          <p role="status">Checking your session…</p>
        </main>
      ) : phase.kind === 'signed-out' ? (
        <SignIn onSignedIn={enter} notice={phase.notice} />
      ) : (
        <Dashboard onStreamClosed={() => void currentSession().then((s) => (s ? undefined : lost()))} onSessionEnded={lost} />
      )}
    </>
  );
}
