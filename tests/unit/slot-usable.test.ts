// One "is this slot usable" rule: dispatch and the readiness model decide from it, for every slot state.
import t from 'tap';
import pino from 'pino';
import type { AdapterLifecycle } from '../../management-api/src/adapters/adapter.js';
import { dispatchingOperations } from '../../management-api/src/adapters/dispatch.js';
import { isSlotUsable, type SlotState } from '../../management-api/src/adapters/slot-state.js';
import type { SlotSupervisor } from '../../management-api/src/adapters/slot-supervisor.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';
import { adapterTracer } from '../../management-api/src/observability/tracing.js';
import { Readiness } from '../../management-api/src/probes/readiness.js';

const STATES: SlotState[] = ['connecting', 'healthy', 'degraded', 'off'];
const metrics = () => createMetrics({ version: '0', imageHash: 'dev', manifestSha256: '0'.repeat(64) });

t.test('usable: healthy and off; not usable: degraded and connecting', async (t) => {
  t.same(
    STATES.map((s) => [s, isSlotUsable(s)]),
    [
      ['connecting', false],
      ['healthy', true],
      ['degraded', false],
      ['off', true],
    ],
  );
});

t.test('dispatch calls the adapter exactly when the slot is usable, and refuses with ABX_ERR_ADAPTER_DEGRADED otherwise', async (t) => {
  for (const state of STATES) {
    let calls = 0;
    const adapter = {
      connect: async () => undefined,
      health: async () => ({ state: 'healthy' as const }),
      close: async () => undefined,
      append: async () => ++calls,
      query: async () => calls,
      subscribe: async () => [],
    };
    // The supervisor's state is what dispatch reads; the adapter is a real object recording its calls.
    const supervisor = {
      identity: { slot: 'events', impl: 'local-jsonl', adapter: 'events/local-jsonl', contractVersion: '1.0.0', critical: false },
      state,
      reason: `reason-${state}`,
      adapter: adapter as AdapterLifecycle,
      reportFailure: () => undefined,
    } as unknown as SlotSupervisor;
    const ops = dispatchingOperations('events', supervisor, metrics(), adapterTracer('test'));
    const outcome = await ops.append([]).then(
      () => 'called',
      (err: { code?: string; message: string }) => `${err.code}: ${err.message}`,
    );
    if (isSlotUsable(state)) t.equal(outcome, 'called', state);
    else t.match(outcome, new RegExp(`^ABX_ERR_ADAPTER_DEGRADED: .*reason-${state}`), state);
    t.equal(calls, isSlotUsable(state) ? 1 : 0, `${state}: the adapter was ${isSlotUsable(state) ? '' : 'not '}called`);
  }
});

t.test('readiness: a critical slot must be usable; a non-critical one that is not is listed as degraded', async (t) => {
  for (const state of STATES) {
    const readiness = new Readiness({ logger: pino({ level: 'silent' }), metrics: metrics(), clock: () => new Date(0) });
    const slot = (name: 'orchestrator' | 'events', critical: boolean) => ({
      slot: name,
      impl: 'x',
      adapter: `${name}/x`,
      contractVersion: '1.0.0',
      critical,
      state,
      since: '1970-01-01T00:00:00.000Z',
    });
    readiness.update({ sealFile: '/seal', sealPresent: true, mounts: [], slots: [slot('orchestrator', true), slot('events', false)] });
    const body = JSON.parse(readiness.response.body) as { ready: boolean; degraded: string[] };
    t.equal(body.ready, isSlotUsable(state), `${state}: ready`);
    t.same(body.degraded, isSlotUsable(state) ? [] : ['events'], `${state}: degraded list`);
  }
});
