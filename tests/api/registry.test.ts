// The registry matches the schema; the off implementations are predictable and never throw unexpectedly.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import pino from 'pino';
import { SLOTS, type AdapterContext } from '../../management-api/src/adapters/adapter.js';
import { AdapterOffError } from '../../management-api/src/adapter-errors.js';
import { implementationNames, loadImplementation, registry, registryOf } from '../../management-api/src/adapters/registry.js';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { CONTRACT_VERSIONS, OPERATIONS } from '../../management-api/src/adapters/slot-types.js';
import { manifestFrom, makeRoot } from './support/harness.js';

type SchemaNode = { properties: Record<string, { enum?: string[]; items?: { enum?: string[] } }> };

t.test('the schema enum of each adapters.<slot> equals the registry keys', async (t) => {
  const schema = JSON.parse(await readFile(new URL('../../schema/agentbox.schema.json', import.meta.url), 'utf8')) as { properties: { adapters: SchemaNode } };
  const adapters = schema.properties.adapters.properties;
  for (const slot of SLOTS) t.same([...(adapters[slot]?.enum ?? [])].sort(), implementationNames(slot).sort(), `adapters.${slot}`);
  t.same(adapters['critical']?.items?.enum, [...SLOTS], 'adapters.critical lists exactly the slots');
  t.same(Object.keys(registry), [...SLOTS]);
});

t.test('every registry entry loads a module named <slot>/<impl> with the slot contract version', async (t) => {
  for (const slot of SLOTS) {
    for (const cls of ['local', 'external', 'off'] as const) {
      const entry = registry[slot][cls];
      const module = await entry.load();
      t.equal(module.ADAPTER, `${slot}/${entry.impl}`, `${slot} ${cls}`);
      t.equal(module.CONTRACT_VERSION, CONTRACT_VERSIONS[slot]);
      t.match(module.CONTRACT_VERSION, /^\d+\.\d+\.\d+$/);
    }
  }
  await t.rejects(loadImplementation('beads', 'local-postgres'), /no implementation "local-postgres" for adapter slot "beads"/);
});

t.test("the registry answers to the facts file's names, and refuses a module that names another implementation", async (t) => {
  for (const slot of SLOTS)
    t.same(implementationNames(slot), [boxFacts.slots[slot].local, boxFacts.slots[slot].external, boxFacts.slots[slot].off], `${slot}: the facts file's names`);
  // The pods slot's local entry loads the beads module, as a module left unrenamed after its fact changed would.
  const loaders = Object.fromEntries(
    SLOTS.map((slot) => [
      slot,
      { local: () => registry[slot].local.load(), external: () => registry[slot].external.load(), off: () => registry[slot].off.load() },
    ]),
  );
  const mixedUp = registryOf({ ...loaders, pods: { ...loaders['pods']!, local: () => registry.beads.local.load() } } as unknown as Parameters<
    typeof registryOf
  >[0]);
  await t.rejects(
    loadImplementation('pods', boxFacts.slots.pods.local, {}, mixedUp),
    /schema\/box-facts\.json names the local implementation of slot "pods" "local-fs", but its module is beads\/local-sqlite; rename the module \(and its ADAPTER\) or correct slots\.pods\.local/,
  );
  t.equal((await loadImplementation('beads', boxFacts.slots.beads.local, {}, mixedUp)).ADAPTER, 'beads/local-sqlite', 'a module that matches loads');
});

t.test('off contract: lifecycle succeeds, health says off, every operation rejects with AdapterOffError (503 ABX_ERR_ADAPTER_OFF)', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  const { manifest } = await manifestFrom('');
  for (const slot of SLOTS) {
    const module = await loadImplementation(slot, 'off');
    const context: AdapterContext = { slot, settings: manifest.integrations[slot], paths: root.paths, logger: pino({ level: 'silent' }), env: {} };
    const adapter = module.create(context) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>> & {
      connect(s: AbortSignal): Promise<void>;
      health(s: AbortSignal): Promise<unknown>;
      close(): Promise<void>;
    };
    await adapter.connect(AbortSignal.timeout(1_000));
    await adapter.connect(AbortSignal.timeout(1_000));
    t.same(await adapter.health(AbortSignal.timeout(1_000)), { state: 'off' }, `${slot} health`);
    for (const op of OPERATIONS[slot]) {
      let result: Promise<unknown> | undefined;
      t.doesNotThrow(() => {
        result = adapter[op]!('anything', { odd: [1, 2] }, undefined);
      }, `${slot}.${op} does not throw synchronously`);
      const err: unknown = await result!.then(
        () => undefined,
        (e: unknown) => e,
      );
      t.ok(
        err instanceof AdapterOffError && err.code === 'ABX_ERR_ADAPTER_OFF' && err.statusCode === 503 && err.message.includes(op),
        `${slot}.${op} rejects with AdapterOffError`,
      );
    }
    await adapter.close();
    await adapter.close();
  }
});
