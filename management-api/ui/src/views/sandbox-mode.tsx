// The overview's agent sandbox card: which confinement agents get here (bubblewrap + launcher, the launcher alone, off) and why.
import type { SandboxStatus } from '../types.js';

/** A short name of the mode and a sentence that explains it. */
export function sandboxMode(s: SandboxStatus | undefined): { label: string; detail: string; tone: 'ok' | 'warn' | 'bad' } {
  if (!s?.mode) return { label: 'not reported', detail: 'This API reports no sandbox status.', tone: 'warn' };
  switch (s.mode) {
    case 'confined': {
      const landlock = s.landlockAbi !== undefined ? ` (Landlock ABI ${s.landlockAbi})` : '';
      if (s.namespaces?.active)
        return {
          label: 'bubblewrap + launcher',
          detail: `Each agent runs in bubblewrap (its own user, PID and network namespaces) around the launcher's Landlock, seccomp and rlimits${landlock}.`,
          tone: 'ok',
        };
      const why = s.namespaces?.setting === 'off' ? 'sandbox.namespaces = "off"' : s.namespaces?.reason;
      return {
        label: 'launcher alone',
        detail: `Agents are confined by the launcher's Landlock, seccomp and rlimits${landlock}, without bubblewrap${why ? `: ${why}` : ''}.`,
        tone: 'ok',
      };
    }
    case 'unconfined':
      return { label: 'off', detail: "sandbox.enabled = false: agents run unconfined, with the API's own user, and can read its secrets.", tone: 'bad' };
    case 'unavailable':
      return {
        label: 'unavailable',
        detail: `The sandbox is on but this host cannot enforce it, so every spawn is refused${s.missing ? `: ${s.missing}` : ''}.`,
        tone: 'bad',
      };
    default:
      return { label: 'unknown', detail: 'No local orchestrator has probed the sandbox on this box.', tone: 'warn' };
  }
}

/** The card, from /health's `sandbox`. */
export function SandboxCard({ sandbox }: { sandbox: SandboxStatus | undefined }) {
  const mode = sandboxMode(sandbox);
  return (
    <section aria-labelledby="h-sandbox" class="card">
      <h2 id="h-sandbox">Agent sandbox</h2>
      <p>
        <span class={`pill pill-${mode.tone}`} data-testid="sandbox-mode">
          {mode.label}
        </span>
      </p>
      <p class="muted" data-testid="sandbox-detail">
        {mode.detail}
      </p>
    </section>
  );
}
