// An agent that writes and ends at once, before the box has heard its launcher say it is ready
// (inside bubblewrap the box waits for the launcher's ready byte; a keeper is ready on spawn): its
// output and its exit are still seen. They once were not: listened to only after that wait, an
// 'exit' already emitted left the agent "running" for ever with its output discarded. Many such
// agents at once, and commands run in an agent the same way (exec), with the test's own event loop
// kept busy so that a launcher's ready byte and its agent's exit reach the box in one turn.
import t from 'tap';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

const LOCAL = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';
const AGENTS = 12;

type Agent = { id: string; state: string; exitCode?: number };

/** Busy spells of `ms` every few milliseconds while `work` runs: events pile up and are handled together. */
async function whileBusy<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  }, 5);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: LOCAL });
});
t.teardown(() => box?.close());

const spawn = async (body: Record<string, unknown>): Promise<Agent> => {
  const res = await box.api('/v1/agents', { body });
  if (res.status !== 201) throw new Error(`spawn: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json['agent'] as Agent;
};

/** The agent once it has ended, with its output; the error names what it showed instead. */
async function ended(id: string, wanted: string, path = `/v1/agents/${id}`): Promise<{ agent: Agent; output: string }> {
  return waitFor(`agent ${id} to end with "${wanted}" in its output`, async () => {
    const agent = (await box.api(path)).json['agent'] as Agent;
    const output = JSON.stringify((await box.api(`${path}/output`)).json);
    return agent.state !== 'running' && output.includes(wanted) ? { agent, output } : undefined;
  }).catch(async (err: Error) => {
    throw new Error(`${err.message}: ${JSON.stringify((await box.api(path)).json)} ${JSON.stringify((await box.api(`${path}/output`)).json)}`);
  });
}

t.test('agents that write and end at once: each seen ended, with its output', async (t) => {
  const agents = await whileBusy(30, () =>
    Promise.all(Array.from({ length: AGENTS }, (_, i) => spawn({ name: `quick${i}`, command: '/bin/echo', args: [`said-${i}`] }))),
  );
  for (const [i, a] of agents.entries()) {
    const { agent } = await ended(a.id, `said-${i}`);
    t.match(agent, { state: 'exited', exitCode: 0 }, `quick${i} ended, exit 0, its output kept`);
  }
});

t.test('commands run in an agent that write and end at once: each seen ended, with its output', async (t) => {
  const host = await spawn({ name: 'host', command: '/bin/sleep', args: ['600'] });
  const execs = await whileBusy(30, () =>
    Promise.all(
      Array.from({ length: AGENTS }, async (_, i) => {
        const res = await box.api(`/v1/agents/${host.id}/exec`, { body: { command: '/bin/echo', args: [`ran-${i}`] } });
        if (res.status !== 201) throw new Error(`exec: ${res.status} ${JSON.stringify(res.json)}`);
        return (res.json['agent'] ?? res.json['exec']) as Agent;
      }),
    ),
  );
  for (const [i, e] of execs.entries()) {
    const { agent } = await ended(e.id, `ran-${i}`);
    t.match(agent, { state: 'exited', exitCode: 0 }, `exec ${i} ended, exit 0, its output kept`);
  }
  await box.api(`/v1/agents/${host.id}?graceMs=0`, { method: 'DELETE' });
});
