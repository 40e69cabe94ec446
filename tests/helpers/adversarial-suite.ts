// The adversarial agent suite against a running box, local or in a container: four agents at once (an attacker, a victim, a memory hog, a fork bomb), each attempt's refusal asserted.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { waitFor } from './wait.js';
import { allowed, PROVIDER, refusals, type AttackConfig, type Layer } from './adversarial-expectations.js';

/** The agent script every suite copies into its agents' directories. */
export const AGENT_SCRIPT = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'adversarial-agent.cjs'), 'utf8');

/** adversarial-probe.c compiled static (runs in any box, the container's included), as bytes. */
export function buildProbe(): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-probe-'));
  try {
    const out = path.join(dir, 'probe');
    const source = path.join(path.dirname(fileURLToPath(import.meta.url)), 'adversarial-probe.c');
    try {
      execFileSync(process.env['CC'] || 'cc', ['-static', '-O2', '-s', '-o', out, source], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      throw new Error(
        `compiling adversarial-probe.c with -static failed (Debian: apt-get install gcc libc6-dev): ${String((err as { stderr?: Buffer }).stderr ?? err)}`,
      );
    }
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A running box as the suite drives it. */
export interface AdversarialBox {
  apiUrl: string;
  /** An operator call (the box's API key) to the API; the JSON body. */
  call(method: string, url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Write `text` to `file` inside the box, as the box's user, creating the directory. */
  writeFile(file: string, text: string): Promise<void>;
  /** Write `data` to `file` inside the box, mode 0755, as the box's user (the directory exists). */
  writeExecutable(file: string, data: Buffer): Promise<void>;
  /** Read a file inside the box. */
  readFile(file: string): Promise<string>;
  /** Paths as the box sees them. */
  paths: { workspace: string; apiKeyFile: string; identityKeyFile: string; stateDir: string; installation: string };
  /** Whether the box's root file system is read-only (the container's). */
  readOnlyRoot: boolean;
  /** Agents run as the box's own uid (the container, a box run by a user), not as an uid of their own (a root box). */
  agentsShareBoxUid: boolean;
  /** A file the test planted in the installation after the box started (none where it cannot write there). */
  laterFile?: string;
  /** The stand-in host the manifest allows, on the box's loopback: its port and a port of it not allowed. */
  allowedPort: number;
  closedPort: number;
}

/** The `[sandbox]` and `[providers]` sections of a suite's manifest. */
export function adversarialManifest(o: { namespaces?: 'auto' | 'required' | 'off'; egressPort: number; allowedPort: number; providerPort: number }): string {
  return `[sandbox]\nnamespaces = "${o.namespaces ?? 'auto'}"\n\n[sandbox.limits]\nprocesses = 32\n\n[sandbox.egress]\nport = ${o.egressPort}\nallow_domains = ["127.0.0.1"]\nallow_ports = [${o.allowedPort}]\n\n[providers.${PROVIDER.name}]\nenv_var = "${PROVIDER.envVar}"\nbase_url = "http://127.0.0.1:${o.providerPort}"\n`;
}

type Agent = { id: string; pid: number; state: string; reason?: string };
/** What the suite reads of GET /health. */
type Health = { sandbox?: { mode?: string; namespaces?: { active?: boolean } }; programs?: { programs: Array<{ name: string; pid: number }> } };

const ENDED = ['exited', 'failed', 'terminated', 'crash-loop'];
/** How much the hog touches, and the budget it is spawned with. */
const HOG = { mib: 384, budget: '128m' };
const BOMB_CHILDREN = 64;

async function spawnAgent(box: AdversarialBox, t: Test, request: Record<string, unknown>): Promise<Agent> {
  const r = await box.call('POST', '/v1/agents', request);
  if (r.status !== 201) throw new Error(`spawn ${String(request['name'])}: ${r.status} ${JSON.stringify(r.body)}`);
  const agent = r.body['agent'] as Agent;
  t.teardown(() => box.call('DELETE', `/v1/agents/${agent.id}?graceMs=500`).then(() => undefined));
  return agent;
}

const record = async (box: AdversarialBox, id: string): Promise<Agent> => (await box.call('GET', `/v1/agents/${id}`)).body['agent'] as Agent;
/** The agent's record once it has ended; a timeout names the record last seen (its state, usage and limits say why). */
async function ended(box: AdversarialBox, id: string, what: string): Promise<Agent> {
  let last: Agent | undefined;
  return waitFor(
    what,
    async () => {
      last = await record(box, id);
      return ENDED.includes(last.state) ? last : undefined;
    },
    60_000,
    100,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; its record then: ${JSON.stringify(last)}`);
  });
}

/** The JSON lines the agent printed, once a line is there. */
async function printed<T>(box: AdversarialBox, id: string, what: string): Promise<T> {
  return waitFor(
    what,
    async () => {
      const { body } = await box.call('GET', `/v1/agents/${id}/output`);
      const text = (body['chunks'] as Array<{ stream: string; text: string }>)
        .filter((c) => c.stream === 'stdout')
        .map((c) => c.text)
        .join('');
      const line = text.split('\n').find((l) => l.startsWith('{'));
      return line ? (JSON.parse(line) as T) : undefined;
    },
    60_000,
    100,
  );
}

/** Run the suite against `box` (ready, its agents confined); every refusal and control is one assertion. */
export async function runAdversarialSuite(t: Test, box: AdversarialBox): Promise<void> {
  const health = (await box.call('GET', '/health')).body as Health;
  // Unconfined, the attacker would really write into /etc and the installation: fail before it starts.
  if (health['sandbox']?.mode !== 'confined') throw new Error(`the adversarial suite needs confined agents; /health says ${JSON.stringify(health['sandbox'])}`);
  const layer: Layer = health['sandbox']?.namespaces?.active ? 'bubblewrap' : 'landlock';
  const apiPid = health['programs']!.programs.find((p) => p.name === 'management-api')!.pid;
  const { workspace } = box.paths;
  for (const name of ['attacker', 'hog', 'bomb']) await box.writeFile(path.join(workspace, name, 'agent.cjs'), AGENT_SCRIPT);
  // Beside the attacker's script, which runs it for the syscalls Node cannot make.
  await box.writeExecutable(path.join(workspace, 'attacker', 'probe'), buildProbe());
  await box.writeFile(path.join(workspace, 'victim', 'notes.txt'), 'private to the victim');

  // The victim writes a file of its own first (owned by its uid, where it has one), then waits.
  const victim = await spawnAgent(box, t, {
    name: 'victim',
    command: '/bin/sh',
    args: ['-c', 'echo mine > mine.txt && echo \'{"victim":"ready"}\' && exec /bin/sleep 300'],
  });
  await printed(box, victim.id, 'the victim to write its own file');
  const config: AttackConfig = {
    ...box.paths,
    otherFile: path.join(workspace, 'victim', 'notes.txt'),
    otherAgentOwnFile: path.join(workspace, 'victim', 'mine.txt'),
    apiPid,
    victimPid: victim.pid,
    allowedUrl: `http://127.0.0.1:${box.allowedPort}`,
    allowedPort: box.allowedPort,
    closedPort: box.closedPort,
    apiPort: Number(new URL(box.apiUrl).port),
    provider: PROVIDER.prefix,
    agentsShareBoxUid: box.agentsShareBoxUid,
    ...(box.laterFile ? { laterFile: box.laterFile } : {}),
  };
  // All at once: the attacker's attempts run while the hog and the bomb press on their budgets.
  const [attacker, hog, bomb] = await Promise.all([
    spawnAgent(box, t, { name: 'attacker', command: 'node', args: ['agent.cjs', 'attack', JSON.stringify(config)] }),
    spawnAgent(box, t, { name: 'hog', command: 'node', args: ['agent.cjs', 'hog', String(HOG.mib)], limits: { memory: HOG.budget } }),
    spawnAgent(box, t, { name: 'bomb', command: 'node', args: ['agent.cjs', 'bomb', String(BOMB_CHILDREN)] }),
  ]);

  t.test(`the attacker's attempts are refused (${layer})`, async (t) => {
    const out = await printed<Record<string, { outcome: string; ready: number }>>(box, attacker.id, 'the attacker to report');
    t.match(await ended(box, attacker.id, 'the attacker to exit'), { state: 'exited' }, 'the attacker ran to its end');
    for (const [name, { what, refused }] of Object.entries(refusals(layer, box.readOnlyRoot, box.agentsShareBoxUid))) {
      t.ok(refused.includes(out[name]?.outcome as string), `${what}: refused with ${out[name]?.outcome} (expected ${refused.join(' or ')})`);
      t.equal(out[name]?.ready, 200, `${what}: /ready 200 right after`);
    }
    for (const [name, { what, outcome }] of Object.entries(allowed())) t.equal(out[name]?.outcome, outcome, what);
    t.same(
      Object.keys(out).sort(),
      [...Object.keys(refusals(layer, box.readOnlyRoot, box.agentsShareBoxUid)), ...Object.keys(allowed())].sort(),
      'every attempt was made and judged',
    );
    // Its sign-in attempts spent nothing of the operator's budget.
    const origin = new URL(box.apiUrl).origin;
    const signIn = await fetch(`${box.apiUrl}/ui/session`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: 'not-the-key' }),
    });
    t.equal(signIn.status, 401, "the operator's sign-in is still answered (401 for a wrong key, never 429)");
    // The token it wrote while alive: revoked with its exit.
    const token = (await box.readFile(path.join(workspace, 'attacker', 'token.txt'))).trim();
    const late = await fetch(`${box.apiUrl}/v1/agents/${attacker.id}`, { headers: { authorization: `Bearer ${token}` } });
    t.match(
      { status: late.status, body: await late.json() },
      { status: 401, body: { error: 'ABX_ERR_AUTH_INVALID' } },
      "the agent's token after it exited: 401",
    );
  });

  t.test('the memory hog is ended with limit:memory', async (t) => {
    t.match(await ended(box, hog.id, 'the hog to be ended'), { state: 'terminated', reason: 'limit:memory' });
  });

  t.test(`the fork bomb is stopped at its process limit (${layer})`, async (t) => {
    if (layer === 'bubblewrap') {
      // Its own user namespace: RLIMIT_NPROC counts this agent alone, and fork answers EAGAIN.
      const report = await printed<{ refused: { EAGAIN: number }; started: number }>(box, bomb.id, 'the bomb to report');
      t.ok(report['refused']?.EAGAIN > 0, `forks refused with EAGAIN: ${JSON.stringify(report)}`);
      t.ok(report['started'] < 32, `fewer children than sandbox.limits.processes: ${report['started']}`);
    } else {
      t.match(await ended(box, bomb.id, 'the bomb to be ended'), { state: 'terminated', reason: 'limit:processes' });
    }
  });

  t.test('the victim was neither read nor killed, and the box is still ready with the same API', async (t) => {
    t.match(await record(box, victim.id), { state: 'running' }, 'the victim still runs');
    t.equal(await box.readFile(path.join(workspace, 'victim', 'notes.txt')), 'private to the victim');
    t.equal((await fetch(`${box.apiUrl}/ready`)).status, 200, '/ready 200');
    const after = ((await box.call('GET', '/health')).body as Health)['programs']?.programs as Array<{ name: string; pid: number }>;
    t.equal(after.find((p) => p.name === 'management-api')?.pid, apiPid, 'the API was not restarted');
  });
}
