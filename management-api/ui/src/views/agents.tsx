// Agents: spawn form, the live list with state, usage and limits, terminate, the egress policy; one agent's output followed live.
import { useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { Badge, ErrorNote, Field, Loading, Unavailable } from '../components/common.js';
import { bytes, time } from '../format.js';
import type { Agent, AgentsTopic } from '../types.js';
import { AgentOutput } from './agent-output.js';

const ENDED = new Set(['exited', 'failed', 'terminated', 'crash-loop']);

/** The agents view, from the `agents` topic. */
export function AgentsView({ topic }: { topic: AgentsTopic | undefined }) {
  const [selected, setSelected] = useState<string>();
  const [error, setError] = useState<string>();
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
                  <th scope="col">Name</th>
                  <th scope="col">State</th>
                  <th scope="col">Started</th>
                  <th scope="col">Memory (PSS)</th>
                  <th scope="col">CPU</th>
                  <th scope="col">Processes</th>
                  <th scope="col">Limits</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {topic.agents.map((a) => (
                  <tr key={a.id} data-testid={`agent-${a.name}`} class={a.id === selected ? 'selected' : undefined}>
                    <th scope="row">
                      {a.name}
                      <div class="muted small">{a.id}</div>
                    </th>
                    <td>
                      <Badge value={a.state} testId="agent-state" />
                      {a.reason ? <div class="small">{a.reason}</div> : null}
                    </td>
                    <td>{time(a.startedAt)}</td>
                    <td>{bytes(a.usage?.pss_bytes)}</td>
                    <td>{a.usage?.cpu_seconds !== undefined ? `${a.usage.cpu_seconds.toFixed(2)} s` : '—'}</td>
                    <td>{a.usage?.processes ?? '—'}</td>
                    <td class="small">
                      {a.limits ? `${bytes(a.limits.memory_bytes)}, ${a.limits.cpu_seconds ?? '—'} s CPU, ${a.limits.processes ?? '—'} proc.` : '—'}
                    </td>
                    <td class="actions">
                      <button
                        type="button"
                        class="secondary"
                        aria-label={`Follow the output of ${a.name}`}
                        data-testid="follow"
                        onClick={() => setSelected(a.id)}
                      >
                        Output
                      </button>
                      {ENDED.has(a.state) ? null : (
                        <button type="button" class="danger" aria-label={`Terminate ${a.name}`} data-testid="terminate" onClick={() => void terminate(a)}>
                          Terminate
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {chosen ? <AgentOutput agent={chosen} key={chosen.id} /> : null}
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

function SpawnForm({ onSpawned }: { onSpawned: (a: Agent) => void }) {
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // One argument per line: no shell-style splitting to get wrong.
      const list = args.split('\n').filter((l) => l !== '');
      const { agent } = await call<{ agent: Agent }>('POST', '/v1/agents', { name: name.trim(), command: command.trim(), args: list });
      onSpawned(agent);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="h-spawn" class="card">
      <h2 id="h-spawn">Spawn an agent</h2>
      <form class="grid-form" onSubmit={(e) => void submit(e)} aria-labelledby="h-spawn">
        <Field label="Name">
          <input required value={name} data-testid="spawn-name" onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label="Command" hint="An executable, absolute or on the agent PATH">
          <input required value={command} data-testid="spawn-command" onInput={(e) => setCommand((e.currentTarget as HTMLInputElement).value)} />
        </Field>
        <Field label="Arguments" hint="One per line">
          <textarea rows={3} value={args} data-testid="spawn-args" onInput={(e) => setArgs((e.currentTarget as HTMLTextAreaElement).value)} />
        </Field>
        <div>
          <button type="submit" disabled={busy} data-testid="spawn">
            {busy ? 'Starting…' : 'Spawn'}
          </button>
        </div>
      </form>
      <ErrorNote error={error} testId="spawn-error" />
    </section>
  );
}
