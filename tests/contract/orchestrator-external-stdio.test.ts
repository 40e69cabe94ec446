// orchestrator/external-stdio through the resolver, speaking JSON-RPC to the real reference orchestrator in a child process.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from '../helpers/cli.js';
import { collect, orchestratorContract, parentPid, PARENT_SECRETS } from './orchestrator.contract.js';
import { startSlot } from './pods-harness.js';
import { referenceManifest, stdioManifest, stdioOrchestrator } from './orchestrator-stdio-command.js';

Object.assign(process.env, PARENT_SECRETS);
const env = { ...PARENT_SECRETS, PATH: process.env['PATH'], HOME: process.env['HOME'], LANG: 'C.UTF-8' };

t.test('contract', async (t) => {
  orchestratorContract(t, async () => startSlot('orchestrator', await referenceManifest(), { env }));
});

t.test('the orchestrator command itself gets the allowlisted environment, not the API secrets', async (t) => {
  const h = await startSlot('orchestrator', await referenceManifest(), { env });
  t.teardown(() => h.close());
  const agent = await h.ops.spawn({ name: 'probe', command: 'sleep', args: ['30'] });
  const orchestratorPid = parentPid(agent.pid!);
  t.not(orchestratorPid, process.pid, 'the agent is a child of the orchestrator command, not of the API');
  const environ = readFileSync(`/proc/${orchestratorPid}/environ`, 'utf8').split('\0');
  for (const name of Object.keys(PARENT_SECRETS))
    t.notOk(
      environ.some((e) => e.startsWith(`${name}=`)),
      `${name} is not passed on`,
    );
  t.ok(environ.includes(`AGENTBOX_ROOT=${h.paths.root}`), 'it is told where the box lives');
  await h.ops.terminate(agent.id, 1000);
});

t.test('protocol: parse errors, bad requests, unknown methods, notifications, concurrent calls', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-stdio-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const child = spawn(process.execPath, [await stdioOrchestrator()], {
    env: { PATH: process.env['PATH'], AGENTBOX_ROOT: root },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const answers: Array<Record<string, unknown>> = [];
  createInterface({ input: child.stdout }).on('line', (line) => answers.push(JSON.parse(line) as Record<string, unknown>));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const send = (line: string) => child.stdin.write(`${line}\n`);
  send('this is not json');
  send('{"jsonrpc":"1.0","id":1,"method":"ping"}');
  send('{"jsonrpc":"2.0","id":2,"method":"no.such.method"}');
  send('{"jsonrpc":"2.0","method":"ping"}');
  send('{"jsonrpc":"2.0","id":3,"method":"agent.status","params":[1]}');
  send('{"jsonrpc":"2.0","id":4,"method":"agent.status","params":{"id":"agt_none"}}');
  send('{"jsonrpc":"2.0","id":"five","method":"ping"}');
  const byId = async (id: unknown) => {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const found = answers.find((a) => a['id'] === id && (id !== null || (a['error'] as { code: number }).code === -32700));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no answer for id ${String(id)}`);
  };
  t.match(await byId(null), { jsonrpc: '2.0', error: { code: -32700 } });
  t.match(await byId(1), { error: { code: -32600 } });
  t.match(await byId(2), { error: { code: -32601, message: /no\.such\.method/ } });
  t.match(await byId(3), { error: { code: -32602 } });
  t.match(await byId(4), { error: { code: -32004, message: /agt_none/ } });
  t.match(await byId('five'), { result: {} });
  t.equal(answers.length, 6, 'the notification got no answer');
  child.stdin.end();
  await exited;
  t.equal(child.exitCode, 0, 'stdin closed: the orchestrator exits cleanly');
});

t.test('a command speaking another protocol is fatal at start (the orchestrator is critical)', async (t) => {
  // cat echoes each request back: JSON, but no answer to initialize.
  await t.rejects(startSlot('orchestrator', stdioManifest('/bin/cat', []), { env, timing: { connectTimeoutMs: 3000 } }), {
    name: 'FatalAdapterError',
    message: /orchestrator.*(speaks|timed out|did not complete)/,
  });
});

t.test('a command that cannot run is fatal at start, saying why', async (t) => {
  await t.rejects(startSlot('orchestrator', stdioManifest('/nonexistent/orchestrator', []), { env }), {
    name: 'FatalAdapterError',
    message: /could not run: ENOENT/,
  });
});

const shim = path.join(repoRoot, 'config/stdio-orchestrator');
const compiled = path.join(repoRoot, 'dist/management-api/src/adapters/orchestrator/stdio-orchestrator-main.js');
t.test(
  'the shipped config/stdio-orchestrator runs the compiled orchestrator',
  existsSync(compiled) ? {} : { skip: 'dist/ is not built (npm run build; npm test builds it first)' },
  async (t) => {
    const h = await startSlot('orchestrator', stdioManifest(shim, []), { env });
    t.teardown(() => h.close());
    const agent = await h.ops.spawn({ name: 'shim', command: '/bin/echo', args: ['via the shim'] });
    t.equal((await collect(h.ops, agent.id)).map((c) => c.text).join(''), 'via the shim\n');
  },
);
