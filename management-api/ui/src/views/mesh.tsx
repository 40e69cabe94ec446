// Mesh: the members of a mesh host with their health, capacity and last heartbeat; otherwise says this box is no host.
import { Badge, Loading } from '../components/common.js';
import { pairs, short, time } from '../format.js';
import type { MeshTopic } from '../types.js';

/** The mesh view, from the `mesh` topic. */
export function MeshView({ topic }: { topic: MeshTopic | undefined }) {
  if (!topic) return <Loading what="the mesh" />;
  if (!topic.available) {
    return (
      <section class="card" aria-labelledby="h-mesh">
        <h2 id="h-mesh">Mesh</h2>
        <p class="muted" data-testid="not-mesh-host">
          This box is not a mesh host{topic.reason ? `: ${topic.reason}` : '.'}
        </p>
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="h-mesh">
      <h2 id="h-mesh">Mesh members</h2>
      {topic.members.length === 0 ? (
        <p class="muted">No member has registered yet.</p>
      ) : (
        <div class="table-wrap">
          <table data-testid="mesh-members">
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">State</th>
                <th scope="col">Health</th>
                <th scope="col">Capacity</th>
                <th scope="col">Last heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {topic.members.map((m) => (
                <tr key={m.pubkey}>
                  <th scope="row" title={m.npub ?? m.pubkey}>
                    {short(m.npub ?? m.pubkey, 16)}
                    {m.api_endpoint ? <div class="muted small">{m.api_endpoint}</div> : null}
                  </th>
                  <td>
                    <Badge value={m.state} />
                  </td>
                  <td>{m.health ? String(m.health['status'] ?? (m.health['ready'] === true ? 'ready' : pairs(m.health))) : '—'}</td>
                  <td class="small">{pairs(m.capacity)}</td>
                  <td>{time(m.last_heartbeat_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
