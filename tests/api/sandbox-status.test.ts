// /health and /v1/meta report agent confinement; a confined agent reaches the API on the port it really listens on.
import t from 'tap';
import { buildLauncher } from '../helpers/sandbox-launcher.js';
import { startTestServer } from './support/harness.js';

buildLauncher();
const LOCAL_ORCHESTRATOR = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';

/** Wait for agent `id` to end; its output text. */
async function outputOf(box: Awaited<ReturnType<typeof startTestServer>>, id: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const { json } = await box.api(`/v1/agents/${id}`);
    if ((json['agent'] as { state: string }).state !== 'running') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const { json } = await box.api(`/v1/agents/${id}/output`);
  return (json['chunks'] as Array<{ text: string }>).map((c) => c.text).join('');
}

t.test("sandbox on: confined, with the kernel ABI; the agent may connect to the agents' listener and no other port, the operator's included", async (t) => {
  const box = await startTestServer({ toml: LOCAL_ORCHESTRATOR, env: { PATH: process.env['PATH'] } });
  t.teardown(() => box.close());
  const health = (await box.api('/health', { auth: false })).json;
  t.match(health['sandbox'], { enabled: true, mode: 'confined', requiredAbi: 6 });
  t.ok((health['sandbox'] as { landlockAbi: number }).landlockAbi >= 6, 'the kernel Landlock ABI is reported');
  t.same((await box.api('/v1/meta')).json['sandbox'], health['sandbox'], '/v1/meta says the same');
  const port = Number(new URL(box.server.app.agentbox.agentListener.url()!).port);
  const operator = box.server.apiPort;
  const other = [port - 1, port + 1].find((p) => p !== operator && p > 0)!;
  const script = `import socket\nfor p in (${port}, ${operator}, ${other}):\n  s = socket.socket()\n  try:\n    s.connect(('127.0.0.1', p)); print(p, 'ok')\n  except OSError as e:\n    print(p, e.errno)\n`;
  const spawned = await box.api('/v1/agents', { body: { name: 'caller', command: '/usr/bin/python3', args: ['-c', script] } });
  t.equal(spawned.status, 201);
  const text = await outputOf(box, (spawned.json['agent'] as { id: string }).id);
  t.match(text, new RegExp(`^${port} ok$`, 'm'), "the agents' listener is reachable");
  t.match(text, new RegExp(`^${operator} 13$`, 'm'), "the operator's API port is refused (EACCES)");
  t.match(text, new RegExp(`^${other} 13$`, 'm'), 'another port is refused (EACCES)');
});

t.test('sandbox off (acknowledged): /health and /v1/meta say unconfined, and the start is logged as a warning', async (t) => {
  const box = await startTestServer({
    toml: `${LOCAL_ORCHESTRATOR}[security]\naudit_acknowledged = true\n[sandbox]\nenabled = false\n`,
    env: { PATH: process.env['PATH'] },
  });
  t.teardown(() => box.close());
  t.match((await box.api('/health', { auth: false })).json['sandbox'], { enabled: false, mode: 'unconfined' });
  t.match((await box.api('/v1/meta')).json['sandbox'], { enabled: false, mode: 'unconfined' });
  t.match(box.logs.events('AgentsUnconfined'), [{ level: 40, sandbox: { mode: 'unconfined' } }]);
});
