// Rate limits per credential: every agent calls from 127.0.0.1 like the operator, yet a runaway
// agent spends only its own budget, never the operator's or another agent's.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { startTestServer } from './support/harness.js';

const MAX = 4;

t.test('an agent exhausting its budget limits only itself', async (t) => {
  const box = await startTestServer({
    toml: '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n',
    limits: { max: MAX, timeWindowMs: 60_000 },
  });
  t.teardown(() => box.close());
  const spawn = async (name: string): Promise<string> => {
    const res = await box.api('/v1/agents', { body: { name, command: '/bin/sleep', args: ['600'] } });
    t.equal(res.status, 201, `${name} spawned`);
    const pid = (res.json['agent'] as { pid: number }).pid;
    return /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';
  };
  const alpha = await spawn('alpha');
  const beta = await spawn('beta');
  const create = (auth: string | undefined, title: string) => box.api('/v1/beads', { ...(auth ? { auth } : {}), body: { title } });

  for (let i = 1; i <= MAX; i++) t.equal((await create(alpha, `alpha ${i}`)).status, 201, `alpha's request ${i} of ${MAX}`);
  t.match(await create(alpha, 'one too many'), { status: 429, json: { error: 'ABX_ERR_RATE_LIMITED' } }, 'alpha is limited past its own budget');
  t.equal((await create(beta, 'beta 1')).status, 201, 'beta, from the same address, still has its budget');
  // Each route has its own budget (the spawns above do not count here).
  for (let i = 1; i <= MAX; i++) t.equal((await create(undefined, `operator ${i}`)).status, 201, `the operator's request ${i} of ${MAX}, untouched by alpha's`);
  t.match(await create(undefined, 'operator again'), { status: 429 }, "the operator's own budget still ends at the limit");
});
