// Overview: readiness with its requirements or reason, the agent sandbox mode, adapter slots, supervised programmes, build info.
import { Badge, Loading } from '../components/common.js';
import { short, time } from '../format.js';
import type { Overview } from '../types.js';
import { SandboxCard } from './sandbox-mode.js';

/** The overview of the box, from the `overview` topic. */
export function OverviewView({ overview }: { overview: Overview | undefined }) {
  if (!overview) return <Loading what="the box's state" />;
  const { ready, health, meta } = overview;
  const isReady = ready.status === 200 && ready.body.ready;
  const slots = Object.entries(health.slots ?? {});
  const programs = health.programs;
  return (
    <>
      <section aria-labelledby="h-readiness" class="card">
        <h2 id="h-readiness">Readiness</h2>
        <p class={`readiness ${isReady ? 'ok' : 'bad'}`} role="status" data-testid="readiness">
          {isReady ? 'READY' : 'NOT READY'}
        </p>
        {ready.body.since ? <p class="muted">since {time(ready.body.since)}</p> : null}
        {!isReady && ready.body.reason ? (
          <p class="note error" data-testid="readiness-reason">
            {ready.body.reason}
          </p>
        ) : null}
        <RequirementList title="Requirements" items={ready.body.requirements} testId="requirements" />
        <RequirementList title="Missing" items={ready.body.missing} testId="missing" />
        <RequirementList title="Degraded (not fatal)" items={ready.body.degraded} testId="degraded" />
      </section>

      <SandboxCard sandbox={health.sandbox ?? meta.sandbox} />

      <section aria-labelledby="h-slots" class="card">
        <h2 id="h-slots">Adapter slots</h2>
        <div class="table-wrap">
          <table data-testid="slots">
            <thead>
              <tr>
                <th scope="col">Slot</th>
                <th scope="col">Implementation</th>
                <th scope="col">State</th>
                <th scope="col">Since</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {slots.map(([name, s]) => (
                <tr key={name} data-testid={`slot-${name}`}>
                  <th scope="row">
                    {name}
                    {s.critical ? <span class="muted"> (critical)</span> : null}
                  </th>
                  <td>{s.impl}</td>
                  <td>
                    <Badge value={s.state} />
                  </td>
                  <td>{time(s.since)}</td>
                  <td>{s.reason ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="h-programs" class="card">
        <h2 id="h-programs">Supervised programmes</h2>
        {!programs ? (
          <p class="muted">Not reported.</p>
        ) : !programs.available ? (
          <p class="muted" data-testid="programs-unavailable">
            supervisord is not reachable: {programs.error}
          </p>
        ) : (
          <ul class="plain" data-testid="programs">
            {programs.programs.map((p) => (
              <li key={p.name}>
                <strong>{p.name}</strong> <Badge value={p.state} /> <span class="muted">{p.description}</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="h-build" class="card">
        <h2 id="h-build">Build</h2>
        <dl class="facts" data-testid="build-info">
          <dt>Name</dt>
          <dd>{meta.name ?? '—'}</dd>
          <dt>Version</dt>
          <dd data-testid="version">{meta.version ?? '—'}</dd>
          <dt>Image hash</dt>
          <dd title={meta.imageHash}>
            <code>{short(meta.imageHash, 24)}</code>
          </dd>
          <dt>Manifest sha256</dt>
          <dd title={meta.manifestSha256}>
            <code data-testid="manifest-sha256">{short(meta.manifestSha256, 24)}</code>
          </dd>
          <dt>Federation</dt>
          <dd>{meta.federation?.mode ?? '—'}</dd>
          <dt>API started</dt>
          <dd>{time(health.startedAt)}</dd>
        </dl>
      </section>
    </>
  );
}

function RequirementList({ title, items, testId }: { title: string; items: string[] | undefined; testId: string }) {
  if (!items || items.length === 0) return null;
  return (
    <div>
      <h3>{title}</h3>
      <ul class="chips" data-testid={testId}>
        {items.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
    </div>
  );
}
