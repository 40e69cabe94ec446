// /v1/agents with budgets over HTTP on the real app: request limits (400s), figures and the limit reason in the records and the output stream's end.
import t from 'tap';
import { registerAgentRoutes } from '../../management-api/src/routes/agents-routes.js';
import { startApiBox, type ApiBox } from '../contract/pods-api-box.js';
import { onlySlot } from '../contract/pods-harness.js';
import { waitFor } from '../helpers/wait.js';

const MIB = 1024 ** 2;
const limits = '[resources]\nmemory = "1g"\n\n[sandbox.limits]\nmemory = "512m"\ncpu_seconds = 30\nprocesses = 16\n';
let box: ApiBox;
t.before(async () => {
  box = await startApiBox(onlySlot('orchestrator', 'local-procmgr', limits), registerAgentRoutes, { method: 'POST', url: '/v1/agents' });
});
t.teardown(() => box?.close());

type Agent = {
  id: string;
  state: string;
  reason?: string;
  usage?: { rss_bytes: number; pss_bytes: number; cpu_seconds: number; processes: number };
  limits?: Record<string, number>;
};
const post = (body: unknown) => box.call('/v1/agents', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const agentOf = async (res: Response) => ((await res.json()) as { agent: Agent }).agent;

t.test('a request may lower the budgets, never raise them: clear 400s', async (t) => {
  const raise = await post({ name: 'greedy', command: '/bin/true', limits: { memory: '1g' } });
  t.equal(raise.status, 400);
  t.match(await raise.json(), { error: 'ABX_ERR_VALIDATION', message: /limits\.memory may only lower the manifest's sandbox\.limits\.memory \("512m"\)/ });
  const cpu = await post({ name: 'greedy', command: '/bin/true', limits: { cpu_seconds: 31 } });
  t.match(await cpu.json(), { error: 'ABX_ERR_VALIDATION', message: /sandbox\.limits\.cpu_seconds \(30\)/ });
  for (const bad of [{ open_files: 8 }, { memory: 12 }, { memory: '1t' }, { processes: 0 }, { cpu_seconds: 'lots' }]) {
    const res = await post({ name: 'odd', command: '/bin/true', limits: bad });
    t.equal(res.status, 400, JSON.stringify(bad));
    t.match(await res.json(), { error: 'ABX_ERR_VALIDATION' });
  }
  t.same(((await (await box.call('/v1/agents')).json()) as { agents: Agent[] }).agents, [], 'nothing was started');
});

t.test('figures of a running agent in GET /v1/agents/{id}', async (t) => {
  const agent = await agentOf(
    await post({
      name: 'toucher',
      command: process.execPath,
      args: ['-e', 'globalThis.b = Buffer.alloc(48 * 2 ** 20, 1); setInterval(() => {}, 1e6)'],
      limits: { processes: 4 },
    }),
  );
  t.same(
    agent.limits,
    { memory_bytes: 512 * MIB, cpu_seconds: 30, processes: 4, disk_bytes: 10 * 1024 * MIB, entries: 200_000 },
    "the manifest's budgets, lowered where asked",
  );
  // The sampler runs each second: wait for the sample that sees the touched pages.
  const seen = await waitFor('a sample with the touched memory', async () => {
    const a = await agentOf(await box.call(`/v1/agents/${agent.id}`));
    return (a.usage?.rss_bytes ?? 0) >= 48 * MIB ? a : undefined;
  });
  t.match(seen, { state: 'running', usage: { processes: 1 } });
  t.ok(seen.usage!.pss_bytes >= 48 * MIB && seen.usage!.cpu_seconds >= 0);
  const ended = await agentOf(await box.call(`/v1/agents/${agent.id}?graceMs=2000`, { method: 'DELETE' }));
  t.match(ended, { state: 'terminated' });
  t.notOk(ended.reason);
});

t.test('limit:cpu in the output stream end event, the record and the list', async (t) => {
  const agent = await agentOf(await post({ name: 'spinner', command: '/bin/sh', args: ['-c', 'while :; do :; done'], limits: { cpu_seconds: 1 } }));
  // The stream ends when the agent does: its last event carries the final record.
  const stream = await (await box.call(`/v1/agents/${agent.id}/output?follow=true`)).text();
  const end = /event: end\ndata: (.*)\n/.exec(stream);
  t.ok(end, 'the stream ended with an end event');
  const final = (JSON.parse(end![1]!) as { agent: Agent }).agent;
  t.match(final, { id: agent.id, state: 'terminated', reason: 'limit:cpu', limits: { cpu_seconds: 1 } });
  t.ok(final.usage!.cpu_seconds > 1, `CPU seconds ${final.usage!.cpu_seconds}`);
  t.match(await agentOf(await box.call(`/v1/agents/${agent.id}`)), { state: 'terminated', reason: 'limit:cpu', usage: final.usage });
  const listed = ((await (await box.call('/v1/agents')).json()) as { agents: Agent[] }).agents.find((a) => a.id === agent.id);
  t.match(listed, { reason: 'limit:cpu' });
});
