// A tty agent's terminal in the dashboard: attach (the WebSocket), detach, the terminal following the panel's size, the exit state and why a connection failed.
import '@xterm/xterm/css/xterm.css';
import './terminal.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Agent } from '../types.js';
import { exitText } from '../views/agent-facts.js';
import { explainRefusal } from './terminal-refusal.js';
import type { Screen, ScreenSize } from './terminal-screen.js';
import { connectTerminal, type TerminalConnection, type TerminalEnd } from './terminal-socket.js';

/** Where the view is. */
type Status =
  | { kind: 'connecting' }
  | { kind: 'attached'; size: ScreenSize }
  | { kind: 'detached' }
  | { kind: 'ended'; agent: Agent }
  | { kind: 'failed'; message: string };

// The emulator is its own chunk, fetched the first time a terminal is shown: the dashboard's main bundle stays small.
let loading: Promise<typeof import('./terminal-screen.js')> | undefined;
const loadScreen = () => {
  loading ??= import('./terminal-screen.js').catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
};

/** The terminal of `agent` (a tty agent), attached as soon as it is shown. */
export function TerminalView({ agent }: { agent: Agent }) {
  const host = useRef<HTMLDivElement>(null);
  const [attached, setAttached] = useState(true);
  // A new attachment each time it changes (attaching again after an end or a failure).
  const [attempt, setAttempt] = useState(0);
  const [status, setStatus] = useState<Status>({ kind: 'connecting' });
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    if (!attached) return;
    let current = true;
    let screen: Screen | undefined;
    let connection: TerminalConnection | undefined;
    setStatus({ kind: 'connecting' });
    setProblem(undefined);
    const ended = (how: TerminalEnd) => {
      connection = undefined;
      if (!current) return;
      if (how.kind === 'exit') setStatus({ kind: 'ended', agent: how.agent });
      else if (how.kind === 'closed') setStatus({ kind: 'failed', message: closedMessage(how.code, how.reason) });
      else void explainRefusal(agent.id).then((message) => current && setStatus({ kind: 'failed', message }));
    };

    loadScreen().then(
      ({ openScreen }) => {
        if (!current || !host.current) return;
        const opened = openScreen(host.current);
        screen = opened;
        connection = connectTerminal(agent.id, {
          // The agent takes this viewer's size as soon as it is attached (the last viewer to attach or resize sets it).
          open: () => {
            connection?.resize(opened.size.cols, opened.size.rows);
            setStatus({ kind: 'attached', size: opened.size });
            // In view and focused, ready for typing: xterm also draws nothing while it is scrolled out of view.
            host.current?.scrollIntoView({ block: 'nearest' });
            opened.focus();
          },
          data: (bytes) => opened.write(bytes),
          problem: setProblem,
          end: ended,
        });
        opened.onInput((bytes) => connection?.send(bytes));
        opened.onResize((size) => {
          connection?.resize(size.cols, size.rows);
          setStatus((s) => (s.kind === 'attached' ? { kind: 'attached', size } : s));
        });
      },
      (err: unknown) =>
        current && setStatus({ kind: 'failed', message: `The terminal could not be loaded: ${err instanceof Error ? err.message : String(err)}` }),
    );
    return () => {
      current = false;
      connection?.close();
      screen?.dispose();
    };
  }, [attached, attempt, agent.id]);

  const detach = () => {
    setAttached(false);
    setStatus({ kind: 'detached' });
  };
  const live = status.kind === 'connecting' || status.kind === 'attached';
  return (
    <section aria-labelledby="h-terminal" class="card" data-testid="terminal-panel">
      <h2 id="h-terminal">
        Terminal of {agent.name} <span class="muted small">{agent.id}</span>
      </h2>
      <div class="terminal-bar">
        <p class="muted terminal-status" role="status" data-testid="terminal-status">
          {statusText(status)}
        </p>
        {live ? (
          <button type="button" class="secondary" data-testid="terminal-detach" onClick={detach}>
            Detach
          </button>
        ) : (
          <button
            type="button"
            data-testid="terminal-attach"
            onClick={() => {
              setAttached(true);
              setAttempt((n) => n + 1);
            }}
          >
            {status.kind === 'detached' ? 'Attach' : 'Attach again'}
          </button>
        )}
      </div>
      {status.kind === 'failed' ? (
        <p class="note error" role="alert" data-testid="terminal-error">
          {status.message}
        </p>
      ) : null}
      {problem ? (
        <p class="note error" role="alert">
          {problem}
        </p>
      ) : null}
      {/* The emulator draws itself in here; keyed by the attachment so each attach starts from an empty element. */}
      <div class="terminal-frame">
        <div class={attached ? 'terminal-host' : 'terminal-host detached'} ref={host} key={`${attempt}-${attached}`} data-testid="terminal" />
      </div>
    </section>
  );
}

function statusText(status: Status): string {
  switch (status.kind) {
    case 'connecting':
      return 'Attaching…';
    case 'attached':
      return `Attached, ${status.size.cols} × ${status.size.rows}: what you type goes to the agent.`;
    case 'detached':
      return 'Detached. The agent runs on; attach to see its screen as it is now.';
    case 'ended':
      return `The agent has ended: ${status.agent.state ?? 'ended'}, exit ${exitText(status.agent)}${status.agent.reason ? ` (${status.agent.reason})` : ''}.`;
    case 'failed':
      return 'Not attached.';
  }
}

/** A connection the box closed after it opened. */
function closedMessage(code: number, reason: string): string {
  if (code === 1013) return `The box dropped this view: ${reason || 'it fell behind the output'}. Attach again for the current screen.`;
  if (code === 1001) return 'The agent is gone: the box has forgotten it.';
  return `The connection to the terminal closed (${code}${reason ? `: ${reason}` : ''}). Attach again for the current screen.`;
}
