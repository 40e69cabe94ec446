// Agents: spawn form, the live list (command, duration, exit, reason, usage, limits), terminate with confirmation, the egress policy; one agent's details, output and files.
import { useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote, Loading, Unavailable } from '../components/common.js';
import { useNow } from '../now.js';
import type { Agent, AgentsTopic, InputRequest } from '../types.js';
import { AgentDetail } from './agent-detail.js';
import { AgentFiles } from './agent-files.js';
import { AgentSnapshots } from './agent-snapshots.js';
import { ended } from './agent-facts.js';
import { AgentOutput } from './agent-output.js';
import { AgentRow, AGENT_COLUMNS } from './agent-row.js';
import { TerminalView } from '../terminal/terminal-view.js';
import { SpawnForm } from './spawn-form.js';

/** The agents view, from the `agents` topic; `waiting` (the `inputs` topic) marks the agents waiting for a person. */
export function AgentsView({ topic, waiting }: { topic: AgentsTopic | undefined; waiting?: InputRequest[] | undefined }) {
  const [selected, setSelected] = useState<string>();
  const [error, setError] = useState<string>();
  // Hooks before the early returns: the clock ticks only while an agent runs (durations grow).
  const now = useNow(topic?.agents.some((a) => !ended(a)) ?? false);
  if (!topic) return <Loading what="the agents" />;
  if (!topic.available) return <Unavailable what="The orchestrator" reason={topic.reason} />;

  const terminate = async (agent: Agent) => {
    setError(undefined);
    try {
      await call('DELETE', `/v1/agents/${encodeURIComponent(agent.id)}`);
    } catch (err) {
      setError(describe(err));
    }
  };
  const chosen = topic.agents.find((a) => a.id === selected);

  return (
    <>
      <SpawnForm onSpawned={(a) => setSelected(a.id)} />
      <section aria-labelledby="h-agents" class="card">
        <h2 id="h-agents">Agents</h2>
        <ErrorNote error={error} testId="agents-error" />
        {topic.agents.length === 0 ? (
          <p class="muted">No agent has run yet.</p>
        ) : (
          <div class="table-wrap">
            <table data-testid="agent-list">
              <thead>
                <tr>
                  {AGENT_COLUMNS.map((c) => (
                    <th scope="col" key={c}>
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {topic.agents.map((a) => (
                  <AgentRow
                    key={a.id}
                    agent={a}
                    selected={a.id === selected}
                    waiting={waiting?.some((r) => r.agentId === a.id) ?? false}
                    now={now}
                    onSelect={() => setSelected(a.id)}
                    onTerminate={() => void terminate(a)}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {chosen ? <AgentDetail agent={chosen} key={`detail-${chosen.id}`} /> : null}
      {chosen?.tty ? <TerminalView agent={chosen} key={`terminal-${chosen.id}`} /> : null}
      {chosen && !chosen.tty ? <AgentOutput agent={chosen} key={chosen.id} /> : null}
      {chosen ? <AgentFiles agent={chosen} key={`files-${chosen.id}`} /> : null}
      {chosen ? <AgentSnapshots agent={chosen} key={`snapshots-${chosen.id}`} /> : null}
      <section aria-labelledby="h-egress" class="card">
        <h2 id="h-egress">Sandbox egress policy</h2>
        {topic.sandbox ? (
          <dl class="facts" data-testid="egress">
            <dt>Source</dt>
            <dd>{topic.sandbox.source ?? '—'}</dd>
            <dt>Allowed domains</dt>
            <dd>{topic.sandbox.allow_domains?.length ? topic.sandbox.allow_domains.join(', ') : 'none (no network for agents)'}</dd>
            <dt>Allowed ports</dt>
            <dd>{topic.sandbox.allow_ports?.join(', ') || '—'}</dd>
          </dl>
        ) : (
          <p class="muted" data-testid="egress">
            No egress proxy on this box.
          </p>
        )}
      </section>
    </>
  );
}
