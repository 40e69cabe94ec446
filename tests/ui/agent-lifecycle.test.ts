// How agents ended, in headless Chromium against a real box: the agents table and the details show profile, exit code or signal, the box's reason (a timeout_sec end) and duration; a running agent its running time.
import path from 'node:path';
import t from 'tap';
import { waitFor } from '../api/support/harness.js';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, signIn } from './support/browser.js';
import { openUiPage } from './support/ui-page.js';

const toml =
  '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n[agents.profiles.sleeper]\ncommand = "/bin/sh"\nargs = ["-c", "sleep 60"]\n';

t.test('an exit code, a signal, a timeout and a running agent: each in its row and in its details', async (t) => {
  const opened = await openUiPage(toml);
  t.teardown(() => opened.close());
  const { page, ui, problems } = opened;
  const { box } = ui;
  const { text, waitText } = pageText(page);
  const spawn = async (body: Record<string, unknown>): Promise<string> => {
    const res = await box.api('/v1/agents', { body });
    t.equal(res.status, 201, res.status === 201 ? `spawned ${String(body['name'] ?? body['profile'])}` : JSON.stringify(res.json));
    return (res.json['agent'] as { id: string }).id;
  };
  const state = async (id: string): Promise<{ state: string; reason?: string }> =>
    (await box.api(`/v1/agents/${id}`)).json['agent'] as { state: string; reason?: string };

  await spawn({ name: 'quitter', command: '/bin/sh', args: ['-c', 'exit 3'] });
  // The shell sends itself SIGKILL: an end by a signal, without the box's hand in it.
  await spawn({ name: 'self-killed', command: '/bin/sh', args: ['-c', 'kill -KILL $$'] });
  const timed = await spawn({ profile: 'sleeper', timeout_sec: 1 });
  const runner = await spawn({ name: 'runner', command: '/bin/sh', args: ['-c', 'sleep 60'] });
  t.teardown(() => box.api(`/v1/agents/${runner}?graceMs=200`, { method: 'DELETE' }));
  // However long the box takes to end it: the state is awaited, never a time.
  await waitFor('the timeout end', async () => (await state(timed)).reason === 'timeout', 30_000);

  await page.goto(`${box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await signIn(page, box.key);
  await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT);
  await page.click('[data-testid="tab-agents"]');
  const cell = (agent: string, column: string) => text(`[data-testid="agent-${agent}"] [data-testid="agent-${column}"]`);

  await waitText('[data-testid="agent-quitter"] [data-testid="agent-exit"]', '3');
  t.equal(await cell('quitter', 'exit'), '3', 'the exit code');
  t.equal(await cell('quitter', 'reason'), '—', 'it ended on its own');
  t.equal(await cell('quitter', 'profile'), '—', 'an ad-hoc spawn has no profile');
  t.match(await cell('quitter', 'duration'), /^\d+ s$/, 'how long it ran');

  await waitText('[data-testid="agent-self-killed"] [data-testid="agent-exit"]', 'SIGKILL');
  t.equal(await cell('self-killed', 'exit'), 'SIGKILL', 'the signal, where no exit code is');
  t.equal(await cell('self-killed', 'reason'), '—', 'the box did not end it');

  await waitText('[data-testid="agent-sleeper"] [data-testid="agent-reason"]', 'timeout');
  t.equal(await cell('sleeper', 'reason'), 'timeout: timeout_sec passed', 'the deadline that ended it, by its key');
  t.equal(await cell('sleeper', 'profile'), 'sleeper', 'the profile it was started from');
  t.equal(await cell('sleeper', 'exit'), 'SIGTERM', 'ended as by DELETE');
  t.equal(await text('[data-testid="agent-sleeper"] [data-testid="agent-state"]'), 'terminated');
  t.match(await cell('sleeper', 'duration'), /^\d+ s$/);

  // A running agent's duration is its running time, and it grows while the page watches.
  const first = await cell('runner', 'duration');
  t.match(first, /^\d+ s$/, 'a running time, not a dash');
  await page.waitForFunction(
    (before) => document.querySelector('[data-testid="agent-runner"] [data-testid="agent-duration"]')?.textContent !== before,
    PAGE_WAIT,
    first,
  );
  t.pass(`it grew from ${first}`);
  t.equal(await cell('runner', 'exit'), '—', 'no exit while it runs');

  await page.click('[data-testid="agent-sleeper"] [data-testid="follow"]');
  await waitText('[data-testid="detail-profile"]', 'sleeper');
  t.equal(await text('[data-testid="detail-reason"]'), 'timeout: timeout_sec passed');
  t.equal(await text('[data-testid="detail-exit"]'), 'signal SIGTERM');
  t.match(await text('[data-testid="detail-duration"]'), /^\d+ s$/);
  await page.screenshot({ path: path.join(screenshotDir(), '3-agents-lifecycle.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation');

  await page.click('[data-testid="agent-quitter"] [data-testid="follow"]');
  await waitText('[data-testid="detail-exit"]', 'exit code 3');
  t.equal(await text('[data-testid="detail-profile"]'), 'none: an ad-hoc spawn');
  await page.click('[data-testid="agent-runner"] [data-testid="follow"]');
  await waitText('[data-testid="detail-duration"]', 'so far');
  t.equal(await text('[data-testid="detail-exit"]'), '—');
  t.same(problems.pageErrors, [], 'no uncaught exception');
});
