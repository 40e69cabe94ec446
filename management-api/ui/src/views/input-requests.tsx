// The notice of agents waiting for a person, above every view: one card per open input request, from the `inputs` topic.
import type { InputsTopic } from '../types.js';
import { InputRequestCard } from './input-request-card.js';

/** Nothing while no agent waits; else a region with a count and the cards, oldest first. */
export function InputRequestsNotice({ topic }: { topic: InputsTopic | undefined }) {
  const open = topic?.inputRequests ?? [];
  if (open.length === 0) return null;
  return (
    <section class="input-requests" aria-labelledby="h-inputs" data-testid="input-requests">
      <h2 id="h-inputs">
        <span role="status">{open.length === 1 ? 'An agent waits for input' : `${open.length} agents wait for input`}</span>
      </h2>
      {open.map((r) => (
        <InputRequestCard key={r.id} request={r} />
      ))}
    </section>
  );
}
