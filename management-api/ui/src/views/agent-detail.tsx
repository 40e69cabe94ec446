// One agent in full: its profile, command, times, exit and reason, usage against its budgets, its checkpoints, and its egress refusals.
import { useEffect, useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote } from '../components/common.js';
import { bytes, time } from '../format.js';
import { useNow } from '../now.js';
import type { Agent, AgentDetail as Detail, EgressRefusal } from '../types.js';
import { checkpointsText, commandLine, durationText, ended, exitWords, reasonText } from './agent-facts.js';
import { AgentRefusals } from './agent-refusals.js';

/**
 * The details of `agent` (the live record from the agents topic, with its checkpoints). The refusals come from
 * GET /v1/agents/:id, asked again whenever the live record changes (an agent that tries to
 * connect somewhere is running, and a running agent's usage changes every sample).
 */
export function AgentDetail({ agent }: { agent: Agent }) {
  const [refusals, setRefusals] = useState<EgressRefusal[]>();
  const [error, setError] = useState<string>();
  const now = useNow(!ended(agent));
  const revision = JSON.stringify(agent);

  useEffect(() => {
    let current = true;
    call<Detail>('GET', `/v1/agents/${encodeURIComponent(agent.id)}`)
      .then((d) => {
        if (!current) return;
        setError(undefined);
        setRefusals(d.refusals ?? d.agent.refusals);
      })
      .catch((err: unknown) => current && setError(describe(err)));
    return () => {
      current = false;
    };
  }, [revision]);

  const { usage, limits } = agent;
  return (
    <section aria-labelledby="h-detail" class="card" data-testid="agent-detail">
      <h2 id="h-detail">
        {agent.name} <span class="muted small">{agent.id}</span>
      </h2>
      <dl class="facts">
        <dt>Profile</dt>
        <dd data-testid="detail-profile">{agent.profile ?? 'none: an ad-hoc spawn'}</dd>
        <dt>Command</dt>
        <dd>
          <code class="full" data-testid="detail-command">
            {commandLine(agent)}
          </code>
        </dd>
        <dt>State</dt>
        <dd data-testid="detail-state">
          {agent.state}
          {agent.pid !== undefined && !ended(agent) ? `, pid ${agent.pid}` : ''}
        </dd>
        <dt>Terminal</dt>
        <dd data-testid="detail-tty">{agent.tty ? 'yes: a pseudo-terminal, shown below' : 'no: its output is shown below'}</dd>
        <dt>Started</dt>
        <dd>{time(agent.startedAt)}</dd>
        <dt>Ended</dt>
        <dd>{time(agent.endedAt)}</dd>
        <dt>Duration</dt>
        <dd data-testid="detail-duration">
          {durationText(agent, now)}
          {ended(agent) ? '' : ' so far'}
        </dd>
        <dt>Exit</dt>
        <dd data-testid="detail-exit">{exitWords(agent)}</dd>
        <dt>Ended by the box</dt>
        <dd data-testid="detail-reason">{reasonText(agent)}</dd>
        <dt>Memory (PSS / RSS)</dt>
        <dd>
          {bytes(usage?.pss_bytes)} / {bytes(usage?.rss_bytes)}, limit {bytes(limits?.memory_bytes)}
        </dd>
        <dt>CPU</dt>
        <dd>
          {usage?.cpu_seconds !== undefined ? `${usage.cpu_seconds.toFixed(2)} s` : '—'}, limit{' '}
          {limits?.cpu_seconds !== undefined ? `${limits.cpu_seconds} s` : '—'}
        </dd>
        <dt>Processes</dt>
        <dd>
          {usage?.processes ?? '—'}, limit {limits?.processes ?? '—'}
        </dd>
        <dt>Disk</dt>
        <dd>
          {bytes(usage?.disk_bytes)}, limit {bytes(limits?.disk_bytes)}
        </dd>
        <dt>Entries</dt>
        <dd data-testid="detail-entries">
          {usage?.disk_entries?.toLocaleString('en') ?? '—'}, limit {limits?.entries?.toLocaleString('en') ?? '—'}
        </dd>
        <dt>Checkpoints</dt>
        <dd data-testid="detail-checkpoints">{checkpointsText(agent.checkpoints)}</dd>
      </dl>
      <ErrorNote error={error} testId="detail-error" />
      <AgentRefusals refusals={refusals} />
    </section>
  );
}
