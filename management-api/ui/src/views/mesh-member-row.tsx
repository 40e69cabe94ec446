// One mesh member as a table row: its box name and full key (copyable), state, health (or when it was evicted), capacity in readable units, last heartbeat.
import { Badge } from '../components/common.js';
import { CopyText } from '../components/copy-text.js';
import { bytes, pairs, time } from '../format.js';
import type { MeshMember } from '../types.js';

/** The health column: an evicted member's last report is stale, so it says when it was evicted instead. */
export function memberHealth(m: MeshMember): string {
  if (m.state === 'evicted') return `evicted${m.evicted_at ? ` ${time(m.evicted_at)}` : ''}: no heartbeat for three intervals`;
  if (!m.health) return 'no heartbeat yet';
  const status = m.health['status'];
  if (typeof status === 'string') return status;
  return m.health['ready'] === true ? 'ready' : pairs(m.health);
}

/** The capacity column: agents running and free memory in KiB/MiB/GiB, anything else as key=value. */
export function memberCapacity(capacity: Record<string, unknown> | undefined): string {
  if (!capacity) return '—';
  const { agents_running: running, free_memory_bytes: free, ...rest } = capacity;
  const parts: string[] = [];
  if (typeof running === 'number') parts.push(`${running} agent${running === 1 ? '' : 's'} running`);
  if (typeof free === 'number') parts.push(`${bytes(free)} free`);
  if (Object.keys(rest).length > 0) parts.push(pairs(rest));
  return parts.length ? parts.join(', ') : '—';
}

/** `m` as a row of the members table. */
export function MeshMemberRow({ member: m }: { member: MeshMember }) {
  const key = m.npub ?? m.pubkey;
  return (
    <tr data-testid="mesh-member" class={m.state === 'evicted' ? 'evicted' : undefined}>
      <th scope="row">
        <span data-testid="member-name">{m.name ?? <span class="muted">unnamed</span>}</span>
        {m.api_endpoint ? <div class="muted small">{m.api_endpoint}</div> : null}
      </th>
      <td class="key-cell">
        <CopyText value={key} label={`the key of ${m.name ?? 'this member'}`} testId="member-npub" />
      </td>
      <td>
        <Badge value={m.state} testId="member-state" />
      </td>
      <td data-testid="member-health">{memberHealth(m)}</td>
      <td class="small" data-testid="member-capacity">
        {memberCapacity(m.capacity)}
      </td>
      <td>{time(m.last_heartbeat_at)}</td>
    </tr>
  );
}
