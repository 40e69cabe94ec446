// Approvals: the pending requests of supervised agents, live from the `approvals` topic, each decided in one click.
import { Loading } from '../components/common.js';
import { useNow } from '../now.js';
import type { ApprovalsTopic } from '../types.js';
import { ApprovalCard } from './approval-card.js';

/** The approvals view; the clock ticks only while something waits. */
export function ApprovalsView({ topic }: { topic: ApprovalsTopic | undefined }) {
  const now = useNow((topic?.approvals.length ?? 0) > 0);
  if (!topic) return <Loading what="approval requests" />;
  return (
    <section class="card" aria-labelledby="h-approvals">
      <h2 id="h-approvals">Approval requests</h2>
      {topic.approvals.length === 0 ? (
        <p class="muted" data-testid="no-approvals">
          Nothing waits for a decision. A supervised agent's action that a [policy] rule asks about appears here.
        </p>
      ) : (
        <div class="approvals" data-testid="approvals">
          {topic.approvals.map((r) => (
            <ApprovalCard key={r.id} request={r} now={now} />
          ))}
        </div>
      )}
    </section>
  );
}
