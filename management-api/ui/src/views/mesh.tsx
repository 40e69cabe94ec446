// Mesh: on a mesh host, its members; on any other box, which mode it runs in; a host whose registry fails, why.
import { Loading } from '../components/common.js';
import type { MeshTopic } from '../types.js';
import { MeshMemberRow } from './mesh-member-row.js';

/** The mesh view, from the `mesh` topic. */
export function MeshView({ topic }: { topic: MeshTopic | undefined }) {
  if (!topic) return <Loading what="the mesh" />;
  if (!topic.available) {
    return (
      <section class="card" aria-labelledby="h-mesh">
        <h2 id="h-mesh">Mesh</h2>
        {topic.host === false ? (
          <p class="muted" data-testid="not-mesh-host">
            This box is not a mesh host (mesh.mode = "{topic.mode ?? 'standalone'}"): only a host (mesh.mode = "host") lists members.
          </p>
        ) : (
          <p class="note error" data-testid="mesh-unavailable">
            The member list is not available: {topic.reason ?? 'the registry did not answer'}
          </p>
        )}
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
                <th scope="col">Box</th>
                <th scope="col">Key (npub)</th>
                <th scope="col">State</th>
                <th scope="col">Health</th>
                <th scope="col">Capacity</th>
                <th scope="col">Last heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {topic.members.map((m) => (
                <MeshMemberRow key={m.pubkey} member={m} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
