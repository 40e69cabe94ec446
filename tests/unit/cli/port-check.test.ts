// `agentbox up`'s check of the ports a box binds, against real listeners: a port asked for as 0 is
// chosen free (never twice), a taken one is reported with its programme, key and variable.
import t from 'tap';
import { createServer, type Server } from 'node:net';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { anyFreePort, checkBoxPorts, portFree } from '../../../scripts/cli/port-check.js';

async function listening(t: Tap.Test): Promise<number> {
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
  const r = await loadManifestSource(`[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\nport = ${taken}\n`, { targetArch: 'x86_64', env: {} });
  const check = await checkBoxPorts(r.manifest!, { AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0', AGENTBOX_EGRESS_PORT: '0' });
  t.same(Object.keys(check.chosen).sort(), ['AGENTBOX_API_PORT', 'AGENTBOX_EGRESS_PORT', 'AGENTBOX_METRICS_PORT']);
  const chosen = Object.values(check.chosen).map(Number);
  t.equal(new Set(chosen).size, 3, 'never the same port twice');
  t.ok(chosen.every((p) => p > 0));
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
  t.same(check.taken.map((p) => [p.name, p.key, p.envVar, p.port]), [['relay', 'sovereign_mesh.relay.port', 'AGENTBOX_RELAY_PORT', taken]]);
});
