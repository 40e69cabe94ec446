// Each adapter factory receives its own slot's settings (`[integrations.<slot>]`), never the whole manifest; the orchestrator also `[sandbox]`.
import t from 'tap';
import { SLOTS, type AdapterContext, type SlotName } from '../../management-api/src/adapters/adapter.js';
import { loadImplementation, type RegistryOverrides } from '../../management-api/src/adapters/registry.js';
import { startSlot } from '../contract/pods-harness.js';
import { manifestFrom } from './support/harness.js';

const toml = `[adapters]
beads = "off"
pods = "off"
memory = "off"
events = "off"
orchestrator = "off"

[integrations.beads]
url = "http://beads.invalid:1"
[integrations.events]
url = "http://events.invalid:2"
[integrations.memory]
dimension = 64
table = "slot_settings"
[integrations.orchestrator]
command = "/opt/orchestrator"
args = ["--stdio"]
`;

t.test('the resolver hands each factory its slot, its settings and nothing of the rest of the manifest', async (t) => {
  const seen = new Map<SlotName, AdapterContext>();
  const overrides: Record<string, unknown> = {};
  for (const slot of SLOTS) {
    // The real off module of each slot, recording the context its factory is given.
    const off = await loadImplementation(slot, 'off');
    overrides[slot] = {
      ...off,
      create: (context: AdapterContext) => {
        seen.set(slot, context);
        return off.create(context as never);
      },
    };
  }
  const h = await startSlot('beads', toml, { overrides: overrides as RegistryOverrides });
  t.teardown(() => h.close());
  const { manifest } = await manifestFrom(toml);
  for (const slot of SLOTS) {
    const context = seen.get(slot);
    // The orchestrator alone starts agents: it alone is told how they are confined and accounted. The
    // events slot alone keeps the audit log: it alone is told [audit] (how often it signs checkpoints).
    const keys = [
      'env',
      'logger',
      'paths',
      'settings',
      'slot',
      ...(slot === 'orchestrator' ? ['sandbox'] : []),
      ...(slot === 'events' ? ['audit'] : []),
    ].sort();
    t.same(Object.keys(context ?? {}).sort(), keys, `${slot}: the context's keys`);
    t.equal(context?.slot, slot);
    t.same(context?.settings, manifest.integrations[slot], `${slot}: its own [integrations.${slot}]`);
  }
  t.match(seen.get('memory')?.settings, { dimension: 64, table: 'slot_settings' });
  t.match(seen.get('orchestrator')?.settings, { command: '/opt/orchestrator', args: ['--stdio'] });
  t.ok(Object.isFrozen(seen.get('events')?.settings), 'settings are the frozen manifest values');
  const orchestrator = seen.get('orchestrator');
  const sandbox = orchestrator && 'sandbox' in orchestrator ? orchestrator.sandbox : undefined;
  t.same(sandbox?.settings, manifest.sandbox, "the orchestrator's sandbox: the manifest's [sandbox]");
  t.ok(sandbox?.limitMetrics.terminations, 'and the accounting metrics');
});
