// The spawn form: name, command and arguments, and optionally a working directory, environment variables, lower budgets and a terminal (tty).
import { useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote, Field } from '../components/common.js';
import { EMPTY_SPAWN, spawnBody, type SpawnFields } from '../spawn-body.js';
import type { Agent } from '../types.js';

/** POST /v1/agents from the form; `onSpawned` gets the new record. */
export function SpawnForm({ onSpawned }: { onSpawned: (a: Agent) => void }) {
  const [fields, setFields] = useState<SpawnFields>(EMPTY_SPAWN);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = (key: Exclude<keyof SpawnFields, 'tty'>) => (e: Event) => {
    const value = (e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value;
    setFields((f) => ({ ...f, [key]: value }));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const built = spawnBody(fields);
    if ('problem' in built) return setError(built.problem);
    setBusy(true);
    try {
      const { agent } = await call<{ agent: Agent }>('POST', '/v1/agents', built.body);
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
      <form class="stack" onSubmit={(e) => void submit(e)} aria-labelledby="h-spawn">
        <div class="grid-form">
          <Field label="Name">
            <input required value={fields.name} data-testid="spawn-name" onInput={set('name')} />
          </Field>
          <Field label="Command" hint="An executable, absolute or on the agent PATH">
            <input required value={fields.command} data-testid="spawn-command" onInput={set('command')} />
          </Field>
          <Field label="Arguments" hint="One per line">
            <textarea rows={3} value={fields.args} data-testid="spawn-args" onInput={set('args')} />
          </Field>
          <Field label="Working directory" hint="Under the workspace; empty: the agent's own directory">
            <input value={fields.cwd} data-testid="spawn-cwd" onInput={set('cwd')} />
          </Field>
          <Field label="Environment" hint="NAME=value, one per line; no secrets (they are refused)">
            <textarea rows={3} value={fields.env} data-testid="spawn-env" onInput={set('env')} />
          </Field>
        </div>
        <fieldset class="grid-form limits">
          <legend>Limits (optional: lower than the box's, never higher)</legend>
          <Field label="Memory" hint="e.g. 256m">
            <input value={fields.memory} data-testid="spawn-memory" onInput={set('memory')} />
          </Field>
          <Field label="CPU seconds">
            <input inputMode="numeric" value={fields.cpuSeconds} data-testid="spawn-cpu" onInput={set('cpuSeconds')} />
          </Field>
          <Field label="Processes">
            <input inputMode="numeric" value={fields.processes} data-testid="spawn-processes" onInput={set('processes')} />
          </Field>
          <Field label="Disk" hint="e.g. 1g">
            <input value={fields.disk} data-testid="spawn-disk" onInput={set('disk')} />
          </Field>
        </fieldset>
        <label class="tty-check">
          <input
            type="checkbox"
            checked={fields.tty}
            data-testid="spawn-tty"
            onChange={(e) => setFields((f) => ({ ...f, tty: (e.currentTarget as HTMLInputElement).checked }))}
          />{' '}
          Terminal (tty): run on a pseudo-terminal, for interactive programs; the dashboard shows its terminal
        </label>
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
