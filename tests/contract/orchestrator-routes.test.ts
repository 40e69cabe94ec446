// /v1/agents over HTTP on the real app (local-procmgr behind it): spawn, list, status, output as JSON and SSE, terminate, refusals.
import t from 'tap';
import { registerAgentRoutes } from '../../management-api/src/routes/agents-routes.js';
import { waitFor } from '../helpers/wait.js';
import { startApiBox, type ApiBox } from './pods-api-box.js';
import { onlySlot } from './pods-harness.js';

const probe = { method: 'POST', url: '/v1/agents' } as const;
let box: ApiBox;
t.before(async () => {
  box = await startApiBox(onlySlot('orchestrator', 'local-procmgr'), registerAgentRoutes, probe);
});
t.teardown(() => box?.close());

type Agent = { id: string; state: string; exitCode?: number; signal?: string; pid: number };
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const post = (body: unknown) => box.call('/v1/agents', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

/** Parse a complete SSE body into records. */
function sse(text: string): Array<{ id?: string; event?: string; data?: string }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const record: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const i = line.indexOf(':');
        if (i > 0) record[line.slice(0, i)] = line.slice(i + 2);
      }
      return record;
    })
    .filter((r) => r['data'] !== undefined);
}

t.test('spawn, list, status, output (JSON and SSE with resume)', async (t) => {
  const created = await post({ name: 'hello', command: '/bin/sh', args: ['-c', 'echo one; echo two >&2; sleep 0.2; echo three'] });
  t.equal(created.status, 201);
  const agent = (await json(created))['agent'] as Agent;
  t.equal(created.headers.get('location'), `/v1/agents/${agent.id}`);
  t.match(agent, { state: 'running' });
  t.ok(((await json(await box.call('/v1/agents')))['agents'] as Agent[]).some((a) => a.id === agent.id));

  const stream = await box.call(`/v1/agents/${agent.id}/output?follow=true`);
  t.equal(stream.status, 200);
  t.match(stream.headers.get('content-type'), /^text\/event-stream/);
  const records = sse(await stream.text());
  const output = records.filter((r) => r.event === 'output').map((r) => JSON.parse(r.data!) as { seq: number; stream: string; text: string });
  t.equal(
    output
      .filter((c) => c.stream === 'stdout')
      .map((c) => c.text)
      .join(''),
    'one\nthree\n',
  );
  t.equal(
    output
      .filter((c) => c.stream === 'stderr')
      .map((c) => c.text)
      .join(''),
    'two\n',
  );
  t.same(
    records.filter((r) => r.event === 'output').map((r) => Number(r.id)),
    output.map((c) => c.seq),
    'each event id is its chunk number',
  );
  const end = records.find((r) => r.event === 'end');
  t.match(JSON.parse(end!.data!), { agent: { id: agent.id, state: 'exited', exitCode: 0 } }, 'the stream ends with the final record');

  const resumed = sse(
    await (await box.call(`/v1/agents/${agent.id}/output`, { headers: { accept: 'text/event-stream', 'last-event-id': String(output[0]!.seq) } })).text(),
  );
  t.same(
    resumed.filter((r) => r.event === 'output').map((r) => Number(r.id)),
    output.slice(1).map((c) => c.seq),
    'Last-Event-ID resumes after it',
  );
  const plain = await json(await box.call(`/v1/agents/${agent.id}/output?after=${output[0]!.seq}`));
  t.same(
    (plain['chunks'] as Array<{ seq: number }>).map((c) => c.seq),
    output.slice(1).map((c) => c.seq),
    'JSON output with after',
  );
  t.match(await json(await box.call(`/v1/agents/${agent.id}`)), { agent: { id: agent.id, state: 'exited' } });
});

t.test('DELETE terminates with grace and answers the final record', async (t) => {
  const agent = (await json(await post({ name: 'sleeper', command: 'sleep', args: ['30'] })))['agent'] as Agent;
  const res = await box.call(`/v1/agents/${agent.id}?graceMs=2000`, { method: 'DELETE' });
  t.equal(res.status, 200);
  t.match(await json(res), { agent: { id: agent.id, state: 'terminated', signal: 'SIGTERM' } });
});

t.test('refusals: schema, secrets, unknown ids, authentication', async (t) => {
  for (const body of [
    { command: '/bin/true' },
    { name: 'x', command: '/bin/true', extra: 1 },
    { name: 'bad name', command: '/bin/true' },
    { name: 'x', command: '/bin/true', env: { N: 1 } },
  ]) {
    const res = await post(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(await json(res), { error: 'ABX_ERR_VALIDATION' });
  }
  const secret = await post({ name: 'x', command: '/usr/bin/env', env: { OPENAI_API_KEY: 'sk-not-really-0123456789abcdefghij' } });
  t.equal(secret.status, 400);
  t.notMatch(await secret.text(), /sk-not-really/, 'the refused value is not echoed');
  const unknown = await box.call('/v1/agents/agt_nope');
  t.equal(unknown.status, 404);
  t.match(await json(unknown), { error: 'ABX_ERR_NOT_FOUND' });
  t.equal((await box.call('/v1/agents/agt_nope/output?follow=true')).status, 404, 'errors before the stream starts are JSON');
  t.equal((await box.call('/v1/agents', { auth: false })).status, 401);
  t.equal((await box.call('/v1/agents', { method: 'POST', auth: false, body: '{}', headers: { 'content-type': 'application/json' } })).status, 401);
  t.equal((await box.call('/v1/agents/agt_x?graceMs=-1', { method: 'DELETE' })).status, 400);
});

t.test('closing the app ends open output streams', async (t) => {
  const own = await startApiBox(onlySlot('orchestrator', 'local-procmgr'), registerAgentRoutes, probe);
  const agent = (
    await json(
      await own.call('/v1/agents', {
        method: 'POST',
        body: JSON.stringify({ name: 'quiet', command: 'sleep', args: ['30'] }),
        headers: { 'content-type': 'application/json' },
      }),
    )
  )['agent'] as Agent;
  const stream = await own.call(`/v1/agents/${agent.id}/output?follow=true`);
  const reading = stream.text();
  const started = Date.now();
  await own.close();
  await reading.catch(() => '');
  t.ok(Date.now() - started < 10_000, 'close did not wait on the stream');
  await waitFor(
    'the agent to be ended by the close',
    () => {
      try {
        process.kill(agent.pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    10_000,
  );
});

t.test('orchestrator off: 503 ABX_ERR_ADAPTER_OFF', async (t) => {
  const off = await startApiBox(onlySlot('orchestrator', 'off'), registerAgentRoutes, probe);
  t.teardown(() => off.close());
  for (const [method, p] of [
    ['GET', '/v1/agents'],
    ['POST', '/v1/agents'],
    ['GET', '/v1/agents/agt_x'],
    ['GET', '/v1/agents/agt_x/output'],
    ['DELETE', '/v1/agents/agt_x'],
  ] as const) {
    const res = await off.call(p, {
      method,
      ...(method === 'POST' ? { body: JSON.stringify({ name: 'a', command: '/bin/true' }), headers: { 'content-type': 'application/json' } } : {}),
    });
    t.equal(res.status, 503, `${method} ${p}`);
    t.match(await json(res), { error: 'ABX_ERR_ADAPTER_OFF' });
  }
});
