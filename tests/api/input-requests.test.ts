// Input requests on the real API with real agents: a tty agent's prompt raised on a quiet screen and answered into its terminal, withdrawn by typing or by output that moves on, output that merely quotes a prompt never raised; an agent's own request by its token, awaited and answered; agent tokens refused where they must be; caps and bad bodies.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { startTestServer, waitFor } from './support/harness.js';

const ORCHESTRATOR = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
/** Quiet this long and a tty agent's screen is looked at (the default is 1.5 s). */
const QUIET_MS = 300;
type Agent = { id: string; pid: number; state: string };
type InputRequest = {
  id: string;
  agentId: string;
  agent: string;
  reason: string;
  prompt: string;
  pattern?: string;
  lines: string[];
  state: string;
  closed?: { why: string; answer?: { length: number; enter: boolean; by: Record<string, unknown> } };
  answer?: { text: string };
};
type Stored = { kind: string; data: Record<string, unknown> };

const box = await startTestServer({ toml: ORCHESTRATOR, env: { PATH: '/usr/bin:/bin' }, timing: { promptQuietMs: QUIET_MS } });
t.teardown(() => box.close());

const spawn = async (name: string, body: Record<string, unknown>): Promise<Agent> => {
  const res = await box.api('/v1/agents', { body: { name, ...body } });
  if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
  return res.json['agent'] as Agent;
};
const tty = (name: string, script: string): Promise<Agent> => spawn(name, { command: '/bin/bash', args: ['-c', script], tty: true });
const open = async (): Promise<InputRequest[]> => (await box.api('/v1/input-requests')).json['inputRequests'] as InputRequest[];
const openOf = (agent: Agent): Promise<InputRequest | undefined> =>
  waitFor(`an input request of ${agent.id}`, async () => (await open()).find((r) => r.agentId === agent.id));
const one = async (id: string): Promise<InputRequest> => (await box.api(`/v1/input-requests/${id}`)).json['inputRequest'] as InputRequest;
const events = async (): Promise<Stored[]> =>
  ((await box.api('/v1/events?limit=1000')).json['items'] as Stored[]).filter((e) => e.kind.startsWith('agent.input_'));
const metrics = async (): Promise<string> => (await fetch(box.server.metricsUrl)).text();
const output = async (agent: Agent): Promise<string> =>
  ((await box.api(`/v1/agents/${agent.id}/output`)).json['chunks'] as Array<{ text: string }>).map((c) => c.text).join('');
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';

// An agent without a terminal whose token plays the other agent throughout.
const bystander = await spawn('bystander', { command: '/bin/sleep', args: ['120'] });
const bystanderToken = await tokenOf(bystander.pid);
t.match(bystanderToken, /^abx_agent_/);

t.test('a prompt on a quiet terminal is raised with its screen, answered into the terminal, and gone', async (t) => {
  const agent = await tty('asker', 'echo "about to ask"; read -p "Continue? (y/n) " a; echo "got $a" > answer.txt; echo "answered $a"; sleep 5');
  const request = (await openOf(agent))!;
  t.match(request, { agent: 'asker', reason: 'prompt', prompt: 'Continue? (y/n)', pattern: 'yes-no', state: 'open' });
  t.same(request.lines, ['about to ask', 'Continue? (y/n)'], 'the last screen lines, trimmed');
  t.match(await metrics(), /agentbox_input_requests_open\{reason="prompt"\} 1/);

  // Another agent's token may neither list nor answer it.
  t.match(await box.api('/v1/input-requests', { auth: bystanderToken }), { status: 403, json: { error: 'ABX_ERR_AGENT_SCOPE' } });
  t.match(await box.api(`/v1/input-requests/${request.id}`, { auth: bystanderToken, body: { text: 'n' } }), {
    status: 403,
    json: { error: 'ABX_ERR_AGENT_SCOPE' },
  });
  t.match(await box.api(`/v1/input-requests/${request.id}`, { auth: bystanderToken }), { status: 403 });

  const answered = await box.api(`/v1/input-requests/${request.id}`, { body: { text: 'y' } });
  t.equal(answered.status, 200);
  t.match(answered.json['inputRequest'], { state: 'answered', closed: { why: 'answer', answer: { length: 1, enter: true, by: { kind: 'api-key' } } } });
  t.notOk(JSON.stringify(answered.json).includes('"text"'), 'the answer text is not echoed back');
  // An agent without a cwd of its own works in <workspace>/<name>.
  const file = path.join(box.paths.workspaceDir, 'asker', 'answer.txt');
  t.equal(await waitFor('the answer in the workspace', () => readFile(file, 'utf8').catch(() => undefined)), 'got y\n', 'the agent read the typed answer');
  await waitFor('the agent to print it', async () => (await output(agent)).includes('answered y'));
  t.notOk(
    (await open()).some((r) => r.id === request.id),
    'gone from the open list',
  );

  const again = await box.api(`/v1/input-requests/${request.id}`, { body: { text: 'y' } });
  t.match(again, { status: 409, json: { error: 'ABX_ERR_INPUT_REQUEST_CLOSED', message: /is answered: it was answered already/ } });

  const kinds = await waitFor('both events', async () => {
    const of = (await events()).filter((e) => e.data['request'] === request.id);
    return of.length === 2 ? of : undefined;
  });
  t.match(kinds, [
    { kind: 'agent.input_requested', data: { agent: agent.id, name: 'asker', reason: 'prompt', prompt: 'Continue? (y/n)' } },
    { kind: 'agent.input_answered', data: { state: 'answered', length: 1, enter: true, actor: { kind: 'api-key' } } },
  ]);
  const text = await metrics();
  t.match(text, /agentbox_input_requests_total\{reason="prompt",outcome="raised"\} [1-9]/);
  t.match(text, /agentbox_input_requests_total\{reason="prompt",outcome="answered"\} 1/);
  t.match(text, /agentbox_input_requests_open\{reason="prompt"\} 0/);
});

t.test('a password answer is typed, never logged nor recorded: only its length', async (t) => {
  const secret = 'hunter2-Zq9';
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${#p} (the length of what was read)
  const agent = await tty('sudoer', 'read -s -p "[sudo] password for ann: " p; echo; echo "length ${#p}"; sleep 5');
  const request = (await openOf(agent))!;
  t.match(request, { prompt: '[sudo] password for ann:', pattern: 'password' });
  t.equal((await box.api(`/v1/input-requests/${request.id}`, { body: { text: secret } })).status, 200);
  await waitFor('the agent to read it', async () => (await output(agent)).includes(`length ${secret.length}`));
  const recorded = await waitFor('the answered event', async () =>
    (await events()).find((e) => e.data['request'] === request.id && e.kind === 'agent.input_answered'),
  );
  t.match(recorded?.data, { length: secret.length });
  t.notOk(JSON.stringify(await events()).includes(secret), 'not in the event log');
  t.notOk(box.logs.text().includes(secret), 'not in the logs');
  t.match(box.logs.text(), /"event":"InputAnswered"/);
});

t.test('typing into the terminal withdraws the prompt; an answer then is refused', async (t) => {
  const agent = await tty('typed', 'read -p "Overwrite config? [y/N] " a; echo "typed $a"; sleep 5');
  const request = (await openOf(agent))!;
  t.equal((await box.api(`/v1/agents/${agent.id}/input`, { body: { data: 'n\r' } })).status, 204);
  await waitFor('withdrawn', async () => (await one(request.id)).state === 'withdrawn');
  t.match(await one(request.id), { state: 'withdrawn', closed: { why: 'input' } });
  t.match(await box.api(`/v1/input-requests/${request.id}`, { body: { text: 'y' } }), {
    status: 409,
    json: { error: 'ABX_ERR_INPUT_REQUEST_CLOSED', message: /withdrawn: someone typed into its terminal/ },
  });
  await waitFor('the agent to go on', async () => (await output(agent)).includes('typed n'));
  // The typed answer's echo puts the prompt line behind: it is not raised again.
  await new Promise((r) => setTimeout(r, QUIET_MS * 4));
  t.notOk(
    (await open()).some((r) => r.agentId === agent.id),
    'not raised again',
  );
  t.match(
    await waitFor('both events', async () => {
      const of = (await events()).filter((e) => e.data['request'] === request.id);
      return of.length === 2 ? of : undefined;
    }),
    [{ kind: 'agent.input_requested' }, { kind: 'agent.input_withdrawn', data: { state: 'withdrawn', why: 'input' } }],
  );
});

t.test('output that moves on past a raised prompt withdraws it', async (t) => {
  const agent = await tty('mover', 'printf "Proceed? [Y/n] "; sleep 2; echo; echo "went on by itself"; sleep 5');
  const request = (await openOf(agent))!;
  t.match(request, { prompt: 'Proceed? [Y/n]' });
  await waitFor('withdrawn', async () => (await one(request.id)).state === 'withdrawn');
  t.match(await one(request.id), { closed: { why: 'output' } });
});

t.test('output that merely quotes a prompt and keeps printing is not raised', async (t) => {
  const agent = await tty(
    'chatty',
    // Each round is one write that quotes a prompt on a line of its own and moves on past it: the
    // screen never rests on the prompt, however long the machine takes between rounds (a rest on a
    // prompt line longer than the quiet window is a prompt, raised as it should be).
    "for i in $(seq 1 40); do printf 'Overwrite file%s? (y/n) skipped\\nContinue? (y/n)\\nfile%s kept\\n' $i $i; sleep 0.05; done; echo 'all done'; sleep 5",
  );
  await waitFor('the agent to finish printing', async () => (await output(agent)).includes('all done'));
  await new Promise((r) => setTimeout(r, QUIET_MS * 4));
  t.notOk(
    (await open()).some((r) => r.agentId === agent.id),
    'no request while it printed, nor after it stopped on a non-prompt line',
  );
  t.notOk(
    (await events()).some((e) => e.data['agent'] === agent.id),
    'no event either',
  );
});

t.test("an agent's own request: raised with its token, awaited, answered, its answer handed to it", async (t) => {
  const agent = await spawn('planner', { command: '/bin/sleep', args: ['120'] });
  const token = await tokenOf(agent.pid);
  const raised = await box.api(`/v1/agents/${agent.id}/input-requests`, { auth: token, body: { prompt: 'Which branch should I push to?' } });
  t.equal(raised.status, 201);
  const request = raised.json['inputRequest'] as InputRequest;
  t.match(request, { agentId: agent.id, agent: 'planner', reason: 'explicit', prompt: 'Which branch should I push to?', lines: [], state: 'open' });
  t.ok(
    (await open()).some((r) => r.id === request.id),
    'listed for the operator',
  );

  // Another agent may not raise for it, nor read its request.
  t.match(await box.api(`/v1/agents/${agent.id}/input-requests`, { auth: bystanderToken, body: { prompt: 'x' } }), { status: 403 });
  t.match(await box.api(`/v1/agents/${agent.id}/input-requests/${request.id}`, { auth: bystanderToken }), { status: 403 });
  t.match(await box.api(`/v1/agents/${bystander.id}/input-requests/${request.id}`, { auth: bystanderToken }), {
    status: 404,
    json: { error: 'ABX_ERR_INPUT_REQUEST_NOT_FOUND' },
  });
  // Nor can an agent answer, even its own.
  t.match(await box.api(`/v1/input-requests/${request.id}`, { auth: token, body: { text: 'main' } }), { status: 403 });

  const started = Date.now();
  const waiting = box.api(`/v1/agents/${agent.id}/input-requests/${request.id}?wait=20`, { auth: token });
  await new Promise((r) => setTimeout(r, 300));
  t.equal((await box.api(`/v1/input-requests/${request.id}`, { body: { text: 'main', enter: false } })).status, 200);
  const answered = await waiting;
  t.equal(answered.status, 200);
  t.match(answered.json['inputRequest'], { state: 'answered', answer: { text: 'main' }, closed: { answer: { length: 4, enter: false } } });
  t.ok(Date.now() - started < 15_000, 'the long poll answered when the answer came');
  t.notOk(JSON.stringify((await box.api(`/v1/input-requests/${request.id}`)).json).includes('"main"'), "the operator's view holds only the length");

  // Taken back by the agent; ended with the agent.
  const second = (await box.api(`/v1/agents/${agent.id}/input-requests`, { auth: token, body: { prompt: 'Retry?' } })).json['inputRequest'] as InputRequest;
  t.match(await box.api(`/v1/agents/${agent.id}/input-requests/${second.id}`, { auth: token, method: 'DELETE' }), {
    status: 200,
    json: { inputRequest: { state: 'withdrawn', closed: { why: 'agent' } } },
  });
  const third = (await box.api(`/v1/agents/${agent.id}/input-requests`, { auth: token, body: { prompt: 'Still there?' } })).json[
    'inputRequest'
  ] as InputRequest;
  const pending = box.api(`/v1/agents/${agent.id}/input-requests/${third.id}?wait=30`);
  await box.api(`/v1/agents/${agent.id}`, { method: 'DELETE' });
  t.match((await pending).json['inputRequest'], { state: 'ended', closed: { why: 'agent-ended' } }, 'the wait ends when the agent ends');
  t.match(await box.api(`/v1/input-requests/${third.id}`, { body: { text: 'x' } }), { status: 409, json: { message: /ended: the agent has ended/ } });
  t.match(await box.api(`/v1/agents/${agent.id}/input-requests`, { body: { prompt: 'x' } }), { status: 409, json: { error: 'ABX_ERR_CONFLICT' } });
});

t.test('caps and bad bodies', async (t) => {
  const agent = await spawn('needy', { command: '/bin/sleep', args: ['120'] });
  const token = await tokenOf(agent.pid);
  const raise = (prompt: unknown) => box.api(`/v1/agents/${agent.id}/input-requests`, { auth: token, body: { prompt } });
  for (let i = 0; i < 4; i++) t.equal((await raise(`question ${i}`)).status, 201);
  t.match(await raise('one too many'), { status: 429, json: { error: 'ABX_ERR_INPUT_REQUESTS_FULL', message: /has 4 input requests open \(at most 4\)/ } });
  t.match(await metrics(), /agentbox_input_requests_total\{reason="explicit",outcome="refused"\} 1/);
  t.match(await raise('x'.repeat(2001)), { status: 400, json: { error: 'ABX_ERR_VALIDATION', message: /prompt/ } });
  t.match(await raise(''), { status: 400, json: { error: 'ABX_ERR_VALIDATION' } });
  t.match(await box.api(`/v1/agents/${agent.id}/input-requests`, { auth: token, body: { prompt: 'x', extra: 1 } }), { status: 400 });

  const id = (await open()).find((r) => r.agentId === agent.id)!.id;
  const answer = (body: unknown) => box.api(`/v1/input-requests/${id}`, { body });
  t.match(await answer({}), { status: 400, json: { error: 'ABX_ERR_VALIDATION', message: /text/ } });
  t.match(await answer({ text: 5 }), { status: 400, json: { error: 'ABX_ERR_VALIDATION' } });
  t.match(await answer({ text: 'y', also: true }), { status: 400 });
  t.match(await answer({ text: 'x'.repeat(4097) }), { status: 400 });
  t.match(await answer({ text: '', enter: false }), { status: 400, json: { error: 'ABX_ERR_VALIDATION', message: /types nothing/ } });
  t.match(await box.api('/v1/input-requests/nope', { body: { text: 'y' } }), { status: 400 });
  t.match(await box.api(`/v1/input-requests/inp_${'0'.repeat(18)}`, { body: { text: 'y' } }), {
    status: 404,
    json: { error: 'ABX_ERR_INPUT_REQUEST_NOT_FOUND' },
  });
  t.match(await box.api(`/v1/agents/${agent.id}/input-requests/${id}?wait=61`, { auth: token }), { status: 400 });
  t.equal((await answer({ text: '', enter: true })).status, 200, 'Enter alone is an answer');
});
