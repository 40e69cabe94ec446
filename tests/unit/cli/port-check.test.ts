// `agentbox up`'s check of the ports a box binds, against real listeners: a port asked for as 0 is
// chosen free (never twice), a taken one is reported with its programme, key and variable.
import t, { type Test } from 'tap';
import { createServer, type Server } from 'node:net';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { anyFreePort, checkBoxPorts, ephemeralLow, LOWEST_CHOSEN_PORT, portFree, quietFreePort, setsKey } from '../../../scripts/cli/port-check.js';

async function listening(t: Test): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', () => ok()));
  t.teardown(() => s.close());
  return (s.address() as { port: number }).port;
}

t.test('ports asked for as 0 are chosen, free and distinct; a taken port is reported', async (t) => {
  const taken = await listening(t);
  const free = await anyFreePort('127.0.0.1');
  t.equal(await portFree('127.0.0.1', taken), false);
  t.equal(await portFree('127.0.0.1', free), true);
  const r = await loadManifestSource(`[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\nport = ${taken}\n`, {
    targetArch: 'x86_64',
    env: {},
  });
  const check = await checkBoxPorts(r.manifest!, { AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0', AGENTBOX_EGRESS_PORT: '0' });
  t.same(Object.keys(check.chosen).sort(), ['AGENTBOX_API_PORT', 'AGENTBOX_EGRESS_PORT', 'AGENTBOX_METRICS_PORT']);
  const chosen = Object.values(check.chosen).map(Number);
  t.equal(new Set(chosen).size, 3, 'never the same port twice');
  t.ok(
    chosen.every((p) => p >= LOWEST_CHOSEN_PORT && p < ephemeralLow()),
    `below the ephemeral range, where no outgoing connection takes them before the box listens: ${chosen.join(', ')}`,
  );
  t.same(
    check.ports.map((p) => [p.name, p.port]),
    [
      ['API', Number(check.chosen['AGENTBOX_API_PORT'])],
      ['metrics', Number(check.chosen['AGENTBOX_METRICS_PORT'])],
      ['egress proxy', Number(check.chosen['AGENTBOX_EGRESS_PORT'])],
      ['relay', taken],
    ],
    'the chosen ports are the ones the box is given',
  );
  t.same(
    check.taken.map((p) => [p.name, p.key, p.envVar, p.port]),
    [['relay', 'sovereign_mesh.relay.port', 'AGENTBOX_RELAY_PORT', taken]],
  );
});

t.test('a port the manifest leaves at its default moves to a free one when taken; a pinned or overridden one does not', async (t) => {
  const taken = await listening(t);
  // The default of api.port moved onto a taken port, as a second box finds 9090 held by the first.
  const context = { targetArch: 'x86_64' as const, env: {} };
  const r = await loadManifestSource(`[api]\nport = ${taken}\n`, context);
  const floating = await checkBoxPorts(r.manifest!, { AGENTBOX_METRICS_PORT: '0', AGENTBOX_EGRESS_PORT: '0' }, () => false);
  t.same(floating.taken, [], 'nothing refused');
  t.equal(floating.moved.length, 1);
  t.match(floating.moved[0], { name: 'API', key: 'api.port', envVar: 'AGENTBOX_API_PORT', from: taken });
  t.not(floating.moved[0]!.port, taken);
  t.equal(floating.chosen['AGENTBOX_API_PORT'], String(floating.moved[0]!.port), 'the box is given the new port');
  t.equal(await portFree('127.0.0.1', floating.moved[0]!.port), true, 'and it is free');

  const pinned = await checkBoxPorts(r.manifest!, { AGENTBOX_METRICS_PORT: '0', AGENTBOX_EGRESS_PORT: '0' }, (key) => key === 'api.port');
  t.same(
    pinned.taken.map((p) => p.key),
    ['api.port'],
    'set in the manifest file: refused',
  );
  t.same(pinned.moved, []);
  const overridden = await checkBoxPorts(r.manifest!, { AGENTBOX_API_PORT: String(taken), AGENTBOX_METRICS_PORT: '0', AGENTBOX_EGRESS_PORT: '0' }, () => false);
  t.same(
    overridden.taken.map((p) => p.key),
    ['api.port'],
    'set by its variable: refused',
  );
});

t.test('a chosen port is never one to avoid, nor one taken', async (t) => {
  const taken = await listening(t);
  const avoided = new Set<number>();
  for (let i = 0; i < 50; i++) {
    const port = await quietFreePort('127.0.0.1', (p) => avoided.has(p) || p === taken);
    t.notOk(avoided.has(port), `${port} was not chosen before`);
    avoided.add(port);
  }
  t.equal(avoided.size, 50);
});

t.test('setsKey: only keys the file itself writes pin a port', async (t) => {
  t.ok(setsKey({ api: { port: 9090 } }, 'api.port'));
  t.notOk(setsKey({ api: { bind: '127.0.0.1' } }, 'api.port'));
  t.notOk(setsKey({}, 'sovereign_mesh.relay.port'));
  t.notOk(setsKey({ sovereign_mesh: 'not a table' }, 'sovereign_mesh.relay.port'));
});
