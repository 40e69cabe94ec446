// The signed-in dashboard: one live stream for every view, a tab list to move between views.
import { useState } from 'preact/hooks';
import { useDashboard } from './live.js';
import { AgentsView } from './views/agents.js';
import { ApprovalsView } from './views/approvals.js';
import { BeadsView } from './views/beads.js';
import { EventsView } from './views/events.js';
import { InputRequestsNotice } from './views/input-requests.js';
import { MemoryView } from './views/memory.js';
import { MeshView } from './views/mesh.js';
import { OverviewView } from './views/overview.js';

const VIEWS = [
  { id: 'overview', label: 'Overview' },
  { id: 'agents', label: 'Agents' },
  { id: 'approvals', label: 'Approvals' },
  { id: 'beads', label: 'Beads' },
  { id: 'events', label: 'Events' },
  { id: 'memory', label: 'Memory' },
  { id: 'mesh', label: 'Mesh' },
] as const;
type ViewId = (typeof VIEWS)[number]['id'];

/** How many approval requests wait, beside the tab's name (nothing when none). */
function PendingBadge({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span class="count-badge" data-testid="approvals-pending">
      {count}
      <span class="sr-only"> pending</span>
    </span>
  );
}

/** The views behind a tab list (arrow keys move between tabs, as the ARIA tabs pattern asks). */
export function Dashboard({ onStreamClosed, onSessionEnded }: { onStreamClosed: () => void; onSessionEnded: () => void }) {
  const live = useDashboard(onStreamClosed, onSessionEnded);
  const [view, setView] = useState<ViewId>('overview');

  const onKey = (e: KeyboardEvent, index: number) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    e.preventDefault();
    const next = VIEWS[(index + step + VIEWS.length) % VIEWS.length]!;
    setView(next.id);
    document.getElementById(`tab-${next.id}`)?.focus();
  };

  const memorySlot = live.overview?.health.slots?.['memory'];
  return (
    <div class="dashboard">
      <nav class="tabs" aria-label="Dashboard views">
        <div class="tablist" role="tablist" aria-label="Views">
          {VIEWS.map((v, i) => (
            <button
              type="button"
              role="tab"
              id={`tab-${v.id}`}
              key={v.id}
              aria-selected={view === v.id}
              aria-controls={`panel-${v.id}`}
              tabIndex={view === v.id ? 0 : -1}
              data-testid={`tab-${v.id}`}
              onClick={() => setView(v.id)}
              onKeyDown={(e) => onKey(e, i)}
            >
              {v.label}
              {v.id === 'approvals' ? <PendingBadge count={live.approvals?.approvals.length ?? 0} /> : null}
            </button>
          ))}
        </div>
        <span class={`live-dot live-${live.connection}`} role="status" data-testid="live-state">
          {live.connection === 'open' ? 'Live' : live.connection === 'connecting' ? 'Connecting…' : 'Disconnected'}
        </span>
      </nav>
      <main class="content">
        <InputRequestsNotice topic={live.inputs} />
        <div role="tabpanel" id={`panel-${view}`} aria-labelledby={`tab-${view}`} data-testid={`view-${view}`}>
          {view === 'overview' ? <OverviewView overview={live.overview} /> : null}
          {view === 'agents' ? <AgentsView topic={live.agents} waiting={live.inputs?.inputRequests} /> : null}
          {view === 'approvals' ? <ApprovalsView topic={live.approvals} /> : null}
          {view === 'beads' ? <BeadsView topic={live.beads} /> : null}
          {view === 'events' ? <EventsView slot={live.overview?.health.slots?.['events']} /> : null}
          {view === 'memory' ? <MemoryView slot={memorySlot} /> : null}
          {view === 'mesh' ? <MeshView topic={live.mesh} /> : null}
        </div>
      </main>
    </div>
  );
}
