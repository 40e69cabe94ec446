// The readiness model on its own: flips both ways from its inputs, and stays UNREADY once the API shuts down.
import t from 'tap';
import { Writable } from 'node:stream';
import { Readiness, type ReadinessInputs } from '../../management-api/src/probes/readiness.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';

function model() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write: (chunk: Buffer, _enc, done) => {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  const metrics = createMetrics({ version: '0', imageHash: 'dev', manifestSha256: '0'.repeat(64) });
  const readiness = new Readiness({ logger: createLogger({ level: 'info', destination }), metrics, clock: () => new Date('2026-01-01T00:00:00Z') });
  return { readiness, metrics, lines };
}

const good: ReadinessInputs = {
  sealFile: '/run/agentbox/bootstrap.done',
  sealPresent: true,
  mounts: [{ name: 'state', path: '/var/lib/agentbox', writable: true }],
  slots: [
    {
      slot: 'orchestrator',
      impl: 'local-procmgr',
      adapter: 'orchestrator/local-procmgr',
      contractVersion: '1.0.0',
      critical: true,
      state: 'healthy',
      since: '2026-01-01T00:00:00.000Z',
    },
  ],
};

t.test('READY ⇄ UNREADY from the inputs, then UNREADY for good once shut down', async (t) => {
  const { readiness, metrics, lines } = model();
  t.equal(readiness.response.status, 503, 'starting');
  readiness.update(good);
  t.equal(readiness.response.status, 200);
  t.equal((await metrics.ready.get()).values[0]?.value, 1);
  readiness.update({ ...good, sealPresent: false });
  t.match(JSON.parse(readiness.response.body), { ready: false, missing: ['seal'] });
  readiness.update(good);
  t.equal(readiness.response.status, 200, 'and back');

  readiness.shutDown();
  t.equal(readiness.response.status, 503);
  t.match(JSON.parse(readiness.response.body), { ready: false, reason: 'the API is shutting down', missing: ['api'] });
  t.equal((await metrics.ready.get()).values[0]?.value, 0, 'the gauge follows');
  readiness.update(good);
  t.equal(readiness.response.status, 503, 'healthy inputs do not make a closing API ready again');
  t.same(
    lines.filter((l) => l['event'] === 'ReadinessChanged').map((l) => l['ready']),
    [true, false, true, false],
    'each flip logged once',
  );
});

t.test('shutting down before any input arrived', async (t) => {
  const { readiness } = model();
  readiness.shutDown();
  t.match(JSON.parse(readiness.response.body), { ready: false, missing: ['api'] });
});
