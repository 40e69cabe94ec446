// Forking a snapshot from the dashboard: start one or several agents on copies of it, and keep copies built ahead (warm) so the next forks start at once.
import { useEffect, useState } from 'preact/hooks';
import { call, describe } from '../api.js';
import { ErrorNote, Field } from '../components/common.js';
import { EMPTY_SPAWN, spawnBody } from '../spawn-body.js';
import type { Agent, SnapshotWarm, SpawnBody } from '../types.js';
import { numberedNames, numberedNamesTooLong } from '../../../src/grammar/agent-name.js';
import { MAX_WARM_FORKS } from '../../../src/grammar/warm-forks-count.js';

/** Forks one press may start: as many as the CLI's `run --count` takes a habit of, well under the box's rate limit. */
export const MAX_FORKS_AT_ONCE = 10;
/** How often the warm copies' count is read again while they are being built. */
const WARM_POLL_MS = 1000;

/** A spawn by manifest profile: the profile keeps its command, terminal, providers and egress. */
interface ProfileSpawn {
  profile: string;
  name: string;
  args: string[];
}

/** One fork's answer (POST /v1/agents with fromSnapshot). */
interface Forked {
  agent: Agent;
  fork?: { cloned?: boolean; warm?: boolean };
}

/** The names of `count` forks called `name`: the name itself for one, `name-1`… for more (as `agentbox run --count` names them). */
export const forkNames = (name: string, count: number): string[] => (count === 1 ? [name] : numberedNames(name, count));

/** How a fork's directory was made, in words. */
const madeBy = (f: Forked): string => (f.fork?.warm ? 'a copy built ahead' : f.fork?.cloned ? 'a clone' : 'a copy');

/**
 * Start agents on copies of snapshot `sid`, the form filled from `agent` (the one it was taken of):
 * its command, arguments and terminal, or, for an agent started from a manifest profile, that
 * profile (whose command, terminal, providers and egress an ad-hoc spawn would not have). Each
 * fork has its own directory; none shares a byte with another or with the snapshot.
 */
export function SnapshotFork({ agent, sid, onClose }: { agent: Agent; sid: string; onClose: () => void }) {
  const [name, setName] = useState(`${agent.name}-fork`);
  const [command, setCommand] = useState(agent.command);
  const [args, setArgs] = useState((agent.args ?? []).join('\n'));
  const [tty, setTty] = useState(agent.tty === true);
  const [count, setCount] = useState('1');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setStatus(undefined);
    const n = Number(count);
    if (!Number.isInteger(n) || n < 1 || n > MAX_FORKS_AT_ONCE) return setError(`How many: a whole number from 1 to ${MAX_FORKS_AT_ONCE}.`);
    const built: { body: SpawnBody | ProfileSpawn } | { problem: string } =
      agent.profile !== undefined
        ? { body: { profile: agent.profile, name: name.trim(), args: args.split('\n').filter((l) => l !== '') } }
        : spawnBody({ ...EMPTY_SPAWN, name, command, args, tty });
    if ('problem' in built) return setError(built.problem);
    const tooLong = n > 1 ? numberedNamesTooLong(built.body.name, n) : undefined;
    if (tooLong) return setError(`Name: too long for ${n} forks, ${tooLong}.`);
    setBusy(true);
    setStatus(n === 1 ? 'Starting the fork…' : `Starting ${n} forks…`);
    // At once, as the API builds them side by side; each answer said on its own.
    const answers = await Promise.allSettled(
      forkNames(built.body.name, n).map((forkName) => call<Forked>('POST', '/v1/agents', { ...built.body, name: forkName, fromSnapshot: sid })),
    );
    setBusy(false);
    const started = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    const failed = answers.flatMap((a) => (a.status === 'rejected' ? [describe(a.reason)] : []));
    setStatus(started.length > 0 ? `Started ${started.map((f) => `${f.agent.name} (${f.agent.id}, from ${madeBy(f)})`).join(', ')}.` : undefined);
    if (failed.length > 0) setError(`${failed.length} of ${n} not started: ${[...new Set(failed)].join(' ')}`);
  };

  return (
    <div data-testid="snapshot-fork">
      <h3>Fork {sid}</h3>
      <p class="muted">Start agents on copies of this snapshot: each works in its own directory, and nothing it does reaches the snapshot or another fork.</p>
      <form class="stack" onSubmit={(e) => void submit(e)}>
        <div class="grid-form">
          <Field label="Name" hint="With more than one: name-1, name-2, …">
            <input required value={name} data-testid="fork-name" onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          {agent.profile === undefined ? (
            <Field label="Command">
              <input required value={command} data-testid="fork-command" onInput={(e) => setCommand(e.currentTarget.value)} />
            </Field>
          ) : null}
          <Field label="Arguments" hint="One per line">
            <textarea rows={3} value={args} data-testid="fork-args" onInput={(e) => setArgs(e.currentTarget.value)} />
          </Field>
          <Field label="How many" hint={`1 to ${MAX_FORKS_AT_ONCE}, started at once`}>
            <input inputMode="numeric" value={count} data-testid="fork-count" onInput={(e) => setCount(e.currentTarget.value)} />
          </Field>
        </div>
        {agent.profile === undefined ? (
          <label class="tty-check">
            <input type="checkbox" checked={tty} data-testid="fork-tty" onChange={(e) => setTty(e.currentTarget.checked)} /> Terminal (tty)
          </label>
        ) : (
          <p class="muted" data-testid="fork-profile">
            From profile <code>{agent.profile}</code>, as {agent.name} was: its command, terminal, providers and egress come from the manifest.
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={busy} data-testid="fork-start">
            {busy ? 'Starting…' : 'Start'}
          </button>
          <button type="button" class="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
      <ErrorNote error={error} testId="fork-error" />
      {status ? (
        <p class="muted" role="status" data-testid="fork-status">
          {status}
        </p>
      ) : null}
      <WarmCopies sid={sid} />
    </div>
  );
}

/** The copies of `sid` kept ready for forks: how many are wanted and ready, and a control to change it. */
function WarmCopies({ sid }: { sid: string }) {
  const [warm, setWarm] = useState<SnapshotWarm>();
  const [wanted, setWanted] = useState('');
  const [error, setError] = useState<string>();
  const [reads, setReads] = useState(0);
  const building = warm !== undefined && warm.ready < warm.wanted && !warm.error;

  useEffect(() => {
    let current = true;
    call<{ snapshot: { warm?: SnapshotWarm } }>('GET', `/v1/snapshots/${encodeURIComponent(sid)}`)
      .then((r) => current && setWarm(r.snapshot.warm ?? { wanted: 0, ready: 0, building: false }))
      .catch((err: unknown) => current && setError(describe(err)));
    return () => {
      current = false;
    };
  }, [sid, reads]);

  // Read again while copies are being built, until they are all ready or one failed.
  useEffect(() => {
    if (!building) return;
    const timer = setTimeout(() => setReads((n) => n + 1), WARM_POLL_MS);
    return () => clearTimeout(timer);
  }, [building, warm]);

  const keep = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const n = Number(wanted);
    if (wanted.trim() === '' || !Number.isInteger(n) || n < 0 || n > MAX_WARM_FORKS) return setError(`Copies: a whole number from 0 to ${MAX_WARM_FORKS}.`);
    try {
      const answer = await call<{ warm: SnapshotWarm }>('PUT', `/v1/snapshots/${encodeURIComponent(sid)}/warm`, { forks: n });
      setWarm(answer.warm);
      setWanted('');
    } catch (err) {
      setError(describe(err));
    }
  };

  return (
    <form class="file-actions" onSubmit={(e) => void keep(e)} data-testid="warm-copies">
      <p class="muted" data-testid="warm-status">
        {warm === undefined
          ? 'Reading the copies built ahead…'
          : warm.wanted === 0
            ? 'No copy is built ahead: each fork copies the snapshot while it starts.'
            : `${warm.ready} of ${warm.wanted} copies ready for forks${building ? ', building…' : ''}${warm.error ? `; not built: ${warm.error}` : ''}.`}
      </p>
      <label>
        Copies to keep ready <input inputMode="numeric" size={4} value={wanted} data-testid="warm-count" onInput={(e) => setWanted(e.currentTarget.value)} />
      </label>
      <button type="submit" class="secondary" data-testid="warm-keep">
        Keep ready
      </button>
      <ErrorNote error={error} testId="warm-error" />
    </form>
  );
}
