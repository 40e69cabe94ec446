// schema/box-facts.json agrees with what it describes: the schema (slots, features, exceptions,
// keys), the adapter registry, the commands in config/bin, and itself (files under their dirs).
import t from 'tap';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { boxFacts, reservedProgramNames, SLOTS, valueAt, type BoxFactsShape } from '../../management-api/src/box-facts.js';
import { manifestSchema, resolveRef, schemaAt } from '../../management-api/src/manifest/schema-walk.js';
import { implementationNames, registry } from '../../management-api/src/adapters/registry.js';
import { IMPLEMENTATION_CLASSES, SLOTS as ADAPTER_SLOTS } from '../../management-api/src/adapters/adapter.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { repoRoot } from '../helpers/cli.js';

const facts = boxFacts as unknown as BoxFactsShape;
const pointer = (key: readonly string[]) => `/${key.join('/')}`;

// The registry and adapters/adapter.ts take their slots and names from the facts file (a missing or
// extra slot fails to type-check); the schema's enums are written in the schema and tied here.
t.test("slots: the schema enums, the registry and adapter.ts name the facts file's implementations", async (t) => {
  const adapters = resolveRef(manifestSchema.properties!['adapters']!);
  t.same(
    Object.keys(adapters.properties!).filter((k) => k !== 'critical' && k !== 'connect_timeout_sec'),
    SLOTS,
    'the schema lists the slots in the facts order',
  );
  t.same(adapters.properties!['critical']!.items!.enum, SLOTS, 'adapters.critical names exactly the slots');
  t.same([...ADAPTER_SLOTS], SLOTS, 'adapters/adapter.ts SLOTS');
  for (const slot of SLOTS)
    t.same(
      Object.keys(facts.slots[slot]!).sort(),
      [...IMPLEMENTATION_CLASSES, 'integration'].sort(),
      `slots.${slot} names one implementation per class and its integration`,
    );
  t.same(Object.keys(registry), SLOTS, 'the registry has every slot');
  for (const slot of SLOTS) {
    const impls = facts.slots[slot]!;
    t.same(adapters.properties![slot]!.enum, [impls.local, impls.external, impls.off], `adapters.${slot} enum`);
    t.equal(adapters.properties![slot]!.default, impls.local, `adapters.${slot} defaults to the local implementation`);
    t.same(implementationNames(slot), [impls.local, impls.external, impls.off], `the registry's ${slot} implementations`);
  }
});

t.test("slots: the http integrations are the schema's httpIntegration entries", async (t) => {
  const integrations = manifestSchema.properties!['integrations']!.properties!;
  for (const slot of SLOTS) {
    t.equal(facts.slots[slot]!.integration === 'http', integrations[slot]?.$ref === '#/$defs/httpIntegration', `integrations.${slot}`);
  }
});

t.test('features: one per security exception but sandbox-namespaces, each setting a schema key of the right type', async (t) => {
  const exceptions = manifestSchema.properties!['security']!.properties!['exceptions']!.properties!;
  // The one exception that belongs to a setting, not a feature: it takes a reason only (no tmpfs,
  // devices, capabilities, runtime or volumes) and its profile is vendored where the facts say.
  const namespaces = facts.sandboxNamespaces;
  t.equal(namespaces.exception, 'sandbox-namespaces', 'the carve-out is sandbox-namespaces');
  t.notOk(namespaces.exception in facts.features, 'and it is not a feature');
  t.same(
    Object.keys(facts.features).sort(),
    Object.keys(exceptions)
      .filter((k) => k !== namespaces.exception)
      .sort(),
    'feature names = the other [security.exceptions] keys',
  );
  const shape = exceptions[namespaces.exception]!;
  t.same(Object.keys(shape.properties ?? {}), ['reason'], 'sandbox-namespaces takes a reason only');
  t.equal(shape.additionalProperties, false, 'and nothing else');
  t.ok(existsSync(path.join(repoRoot, namespaces.dockerDefaultProfile)), `${namespaces.dockerDefaultProfile} is in the repository`);
  t.match(namespaces.profileFile, /^[a-z0-9-]+\.json$/, 'the profile file is a plain file name (written beside docker-compose.yml)');
  for (const [name, f] of Object.entries(facts.features)) {
    const node = schemaAt(pointer(f.setting.key));
    t.ok(node, `${name}: ${f.setting.key.join('.')} is a schema key`);
    const values = node?.enum ?? (node?.type === 'boolean' ? [true, false] : []);
    t.ok(values.includes(f.setting.value), `${name}: ${JSON.stringify(f.setting.value)} is a value of it`);
    t.not(f.setting.value, node?.default, `${name}: the default leaves it off`);
    if (!f.available) t.ok(f.reason && f.instead, `${name}: an unavailable feature says why and what instead`);
  }
});

t.test("box programmes: ports and settings are schema keys; priorities are the box's", async (t) => {
  for (const [name, p] of Object.entries(facts.programs.box)) {
    for (const key of p.portKeys ?? []) t.equal(schemaAt(pointer(key))?.type, 'integer', `${name}: ${key.join('.')} is an integer key`);
    if (p.setting) t.equal(schemaAt(pointer(p.setting.key))?.type, 'boolean', `${name}: ${p.setting.key.join('.')} is a flag`);
    t.ok(p.priority >= 1 && p.priority < facts.programs.firstOperatorPriority, `${name}: priority ${p.priority} is below the operators'`);
    if (!p.available) t.ok(p.reason && p.instead, `${name}: an unavailable programme says why and what instead`);
  }
  for (const f of Object.values(facts.features))
    for (const p of f.programs) t.ok(p.priority < facts.programs.firstOperatorPriority, `${p.name}: a box priority`);
  const program = resolveRef(manifestSchema.$defs!['program']!).properties!['priority']!;
  t.equal((program.default! as number) >= facts.programs.firstOperatorPriority, true, 'the default programme priority is an operator priority');
  t.same([...reservedProgramNames].sort(), [
    'bootstrap',
    'code-server',
    'desktop',
    'egress-proxy',
    'management-api',
    'playwright',
    'relay',
    'seal-listener',
    'supervisord',
    'telegram-mirror',
  ]);
});

t.test('the schema says which settings ask for a part this build lacks, and that their other keys are read by nothing', async (t) => {
  const lacking = [...Object.values(facts.programs.box), ...Object.values(facts.features)].filter((p) => !p.available && p.setting);
  t.ok(lacking.length > 0, 'this build lacks some parts');
  for (const p of lacking) t.match(schemaAt(pointer(p.setting!.key))?.description, /E036/, `${p.setting!.key.join('.')} names rule E036`);
  // A refused box programme has a table of its own (the relay's): none of its keys configures anything yet.
  for (const [name, p] of Object.entries(facts.programs.box).filter(([, p]) => !p.available && p.setting)) {
    t.match(schemaAt(pointer(p.setting!.key.slice(0, -1)))?.description, /E036.*read by nothing/, `${name}: its table says its keys are read by nothing`);
  }
  // A part that ships is not described as refused, nor its table's keys as read by nothing.
  for (const p of [...Object.values(facts.programs.box), ...Object.values(facts.features)].filter((p) => p.available && p.setting)) {
    t.notMatch(schemaAt(pointer(p.setting!.key))?.description, /E036|read by nothing/, `${p.setting!.key.join('.')} is not described as refused`);
  }
  t.notMatch(
    JSON.stringify(schemaAt('/sovereign_mesh/relay')),
    /E036|does not ship|read by nothing/,
    'the embedded relay ships: no key of its table says otherwise',
  );
});

t.test('a part is available exactly when its command ships in config/bin', async (t) => {
  const parts = [
    ...Object.entries(facts.programs.box).map(([n, p]) => [n, p.argv, p.available] as const),
    ...Object.entries(facts.features).flatMap(([n, f]) => f.programs.map((p) => [n, p.argv, f.available] as const)),
  ];
  for (const [name, argv, available] of parts) {
    if (!argv[0]!.startsWith('@bin@/')) continue;
    const command = argv[0]!.slice('@bin@/'.length);
    t.equal(existsSync(path.join(repoRoot, 'config/bin', command)), available, `${name}: config/bin/${command} ${available ? 'exists' : 'is absent'}`);
  }
  t.ok(existsSync(path.join(repoRoot, 'config/bin', facts.image.entrypoint)), 'the entrypoint ships');
});

t.test('the runtime layout: files sit in its directories, and the defaults read their keys', async (t) => {
  const dirs = Object.values(facts.runtime.dirs);
  for (const [name, file] of Object.entries(facts.runtime.files)) t.ok(dirs.includes(path.dirname(file)), `${name} (${file}) is in a runtime directory`);
  for (const p of facts.baseline.protectedPaths) t.ok(path.isAbsolute(p), `${p} is absolute`);
  for (const dir of [facts.runtime.dirs['runDir']!, facts.runtime.dirs['stateDir']!, facts.runtime.dirs['workspaceDir']!])
    t.ok(facts.baseline.protectedPaths.includes(dir), `${dir} is protected`);
  const { manifest } = await loadManifestSource('', { targetArch: 'x86_64', env: {} });
  t.equal(valueAt(manifest, ['api', 'port']), manifest?.api.port, 'valueAt reads a manifest key');
});
