// One agent's recent egress refusals: where it tried to connect, why the proxy said no, and what would allow it.
import { time } from '../format.js';
import type { EgressRefusal } from '../types.js';

/** The refusals, newest first (the API lists them newest last); nothing when the box does not report them. */
export function AgentRefusals({ refusals }: { refusals: EgressRefusal[] | undefined }) {
  if (refusals === undefined) return null;
  return (
    <div class="refusals" data-testid="agent-refusals">
      <h3 id="h-refusals">Refused connections</h3>
      {refusals.length === 0 ? (
        <p class="muted small">The egress proxy has refused this agent nothing.</p>
      ) : (
        <div class="table-wrap">
          <table aria-labelledby="h-refusals">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Destination</th>
                <th scope="col">Reason</th>
                <th scope="col">To allow it</th>
              </tr>
            </thead>
            <tbody>
              {[...refusals].reverse().map((r, i) => (
                <tr key={`${r.at}-${i}`} data-testid="refusal">
                  <td>{time(r.at)}</td>
                  <td>
                    <code>
                      {r.host}:{r.port}
                    </code>
                  </td>
                  <td>{r.reason}</td>
                  <td>
                    <code class="full">{r.allowWith}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
