// One row of the agents table: name, profile, state, command, duration, exit, reason, usage, limits, and its actions (details, terminate).
import { Badge } from '../components/common.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { bytes, time } from '../format.js';
import type { Agent } from '../types.js';
import { commandLine, durationText, ended, exitText, reasonText } from './agent-facts.js';

/** The column headings, in the order {@link AgentRow} fills them. */
export const AGENT_COLUMNS = ['Name', 'Profile', 'State', 'Command', 'Duration', 'Exit', 'Reason', 'Usage', 'Limits', 'Actions'];

/** `agent` as a row; `now` times a running agent. */
export function AgentRow({
  agent: a,
  selected,
  waiting,
  now,
  onSelect,
  onTerminate,
}: {
  agent: Agent;
  selected: boolean;
  /** It waits for a person (an open input request). */
  waiting?: boolean;
  now: number;
  onSelect: () => void;
  onTerminate: () => void;
}) {
  const command = commandLine(a);
  return (
    <tr data-testid={`agent-${a.name}`} class={selected ? 'selected' : undefined}>
      <th scope="row">
        {a.name}
        <div class="muted small">{a.id}</div>
      </th>
      <td data-testid="agent-profile">{a.profile ?? '—'}</td>
      <td>
        <Badge value={a.state} testId="agent-state" />
        {waiting ? <Badge value="waiting for input" testId="agent-waiting" /> : null}
      </td>
      <td class="command-cell" title={command}>
        <code data-testid="agent-command">{command}</code>
      </td>
      <td title={`started ${time(a.startedAt)}${a.endedAt ? `, ended ${time(a.endedAt)}` : ''}`} data-testid="agent-duration">
        {durationText(a, now)}
      </td>
      <td data-testid="agent-exit">{exitText(a)}</td>
      <td data-testid="agent-reason">{reasonText(a)}</td>
      <td class="small" data-testid="agent-usage">
        {a.usage
          ? `${bytes(a.usage.pss_bytes)} PSS, ${a.usage.cpu_seconds !== undefined ? a.usage.cpu_seconds.toFixed(2) : '—'} s CPU, ${a.usage.processes ?? '—'} proc.`
          : '—'}
      </td>
      <td class="small">{a.limits ? `${bytes(a.limits.memory_bytes)}, ${a.limits.cpu_seconds ?? '—'} s CPU, ${a.limits.processes ?? '—'} proc.` : '—'}</td>
      <td class="actions">
        <button type="button" class="secondary" aria-label={`Details and output of ${a.name}`} data-testid="follow" onClick={onSelect}>
          Details
        </button>
        {ended(a) ? null : (
          <ConfirmButton
            label="Terminate"
            ariaLabel={`Terminate ${a.name}`}
            question={`Terminate ${a.name}?`}
            confirmLabel="Yes, terminate"
            testId="terminate"
            onConfirm={onTerminate}
          />
        )}
      </td>
    </tr>
  );
}
