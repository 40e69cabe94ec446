// Server-Sent Events as Preact hooks: the dashboard stream's topics and any other stream the views follow.
import { useEffect, useState } from 'preact/hooks';
import type { AgentsTopic, ApprovalsTopic, BeadsTopic, InputsTopic, MeshTopic, Overview } from './types.js';

/** The latest message of each dashboard topic (undefined until the first arrives). */
export interface DashboardState {
  overview?: Overview;
  agents?: AgentsTopic;
  beads?: BeadsTopic;
  mesh?: MeshTopic;
  approvals?: ApprovalsTopic;
  inputs?: InputsTopic;
  /** `connecting` until the stream opens, `open`, or `closed` when the browser gave up (e.g. a 401). */
  connection: 'connecting' | 'open' | 'closed';
}

const TOPICS = ['overview', 'agents', 'beads', 'mesh', 'approvals', 'inputs'] as const;
/** The last record of every stream whose session ended (server: management-api/src/dashboard/session-auth.ts). */
const SESSION_ENDED = 'session-ended';

/**
 * Follow /v1/dashboard/stream while mounted; `onClosed` runs when the stream is refused for good,
 * `onSessionEnded` when the server ended it because the session ended.
 */
export function useDashboard(onClosed: () => void, onSessionEnded: () => void): DashboardState {
  const [state, setState] = useState<DashboardState>({ connection: 'connecting' });
  useEffect(() => {
    const source = new EventSource('/v1/dashboard/stream');
    source.onopen = () => setState((s) => ({ ...s, connection: 'open' }));
    for (const topic of TOPICS) {
      source.addEventListener(topic, (e) => {
        const data = JSON.parse((e as MessageEvent<string>).data) as unknown;
        setState((s) => ({ ...s, [topic]: data }));
      });
    }
    // The session ended (signed out here or elsewhere, expired): the server's last record.
    source.addEventListener(SESSION_ENDED, () => {
      source.close();
      setState((s) => ({ ...s, connection: 'closed' }));
      onSessionEnded();
    });
    // EventSource retries by itself after a dropped connection; CLOSED means an HTTP refusal.
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        setState((s) => ({ ...s, connection: 'closed' }));
        onClosed();
      } else setState((s) => ({ ...s, connection: 'connecting' }));
    };
    return () => source.close();
  }, []);
  return state;
}

/** Handlers for one SSE stream: named events, and whether the browser gave up on it. */
export interface StreamHandlers {
  events: Record<string, (data: string, source: EventSource) => void>;
  onOpen?: () => void;
  onClosed?: () => void;
}

/**
 * Open `url` as an EventSource while mounted and while `url` is a string; reopen when it changes.
 * The handlers are those of the render that opened the stream (a re-render does not reconnect),
 * so they should only call state setters, which stay the same across renders.
 */
export function useStream(url: string | undefined, handlers: StreamHandlers): void {
  useEffect(() => {
    if (url === undefined) return undefined;
    const source = new EventSource(url);
    for (const [name, handle] of Object.entries(handlers.events)) {
      // The browser's own `error` events carry no data; only the server's `event: error` records do.
      source.addEventListener(name, (e) => {
        const data = (e as Partial<MessageEvent<string>>).data;
        if (typeof data === 'string') handle(data, source);
      });
    }
    source.onopen = () => handlers.onOpen?.();
    // Not reconnected once the session has ended (the dashboard stream signs the page out).
    source.addEventListener(SESSION_ENDED, () => source.close());
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) handlers.onClosed?.();
    };
    return () => source.close();
  }, [url]);
}
