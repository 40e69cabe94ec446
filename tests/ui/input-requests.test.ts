// Agents waiting for a person in headless Chromium against a real box: a tty agent's prompt appears as a notice above every view with its screen lines, the agents view marks it waiting, the answer box types into the agent, a password prompt hides what is typed.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { waitFor, type TestServer } from '../api/support/harness.js';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, signIn } from './support/browser.js';
import { openUiPage } from './support/ui-page.js';

type InputRequest = { id: string; agentId: string; state: string; closed?: { answer?: { length: number } } };

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"';
const opened = await openUiPage(manifest);
t.teardown(() => opened.close());
const { page, ui, problems } = opened;
const box: TestServer = ui.box;
const { text } = pageText(page);
const shot = (name: string) => page.screenshot({ path: path.join(screenshotDir(), `input-requests-${name}.png`), fullPage: true });

const spawnTty = async (name: string, script: string): Promise<string> => {
  const res = await box.api('/v1/agents', { body: { name, command: '/bin/bash', args: ['-c', script], tty: true } });
  if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
  return (res.json['agent'] as { id: string }).id;
};
const openOf = (agentId: string) =>
  waitFor(
    `the input request of ${agentId}`,
    async () => ((await box.api('/v1/input-requests')).json['inputRequests'] as InputRequest[]).find((r) => r.agentId === agentId),
    10_000,
  );

t.test('a prompt shows as a notice with the screen lines, the agent is marked waiting, and the answer box types into it', async (t) => {
  await page.goto(`${box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await signIn(page, box.key);
  await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT);
  await page.click('[data-testid="tab-agents"]');
  t.equal(await page.$('[data-testid="input-requests"]'), null, 'no notice while no agent waits');

  const agentId = await spawnTty(
    'migrator',
    'echo "3 migrations pending"; echo "  0042_add_index"; read -p "Proceed with the migration? [y/N] " a; echo "answer=$a" > answer.txt; sleep 30',
  );
  const request = await openOf(agentId);
  const card = `[data-testid="input-${request.id}"]`;
  await page.waitForSelector(card, PAGE_WAIT);
  t.match(await text('[data-testid="input-requests"] h2'), 'An agent waits for input');
  t.match(await text(`${card} h3`), /migrator waits for input/);
  t.equal(await text(`${card} [data-testid="input-prompt"]`), 'Proceed with the migration? [y/N]');
  t.equal(
    await text(`${card} [data-testid="input-lines"]`),
    '3 migrations pending\n  0042_add_index\nProceed with the migration? [y/N]',
    'the last screen lines',
  );
  await page.waitForSelector('[data-testid="agent-migrator"] [data-testid="agent-waiting"]', PAGE_WAIT);
  t.match(await text('[data-testid="agent-migrator"] [data-testid="agent-waiting"]'), 'waiting for input', 'the agents view marks it');
  t.equal(await page.$eval(`${card} [data-testid="input-answer"]`, (e) => (e as HTMLInputElement).type), 'text');
  await shot('1-waiting');
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation with a request shown');

  // The notice is above every view, not only the agents'.
  await page.click('[data-testid="tab-overview"]');
  await page.waitForSelector(card, PAGE_WAIT);

  await page.type(`${card} [data-testid="input-answer"]`, 'y');
  await page.click(`${card} [data-testid="input-send"]`);
  await page.waitForSelector('[data-testid="input-requests"]', { ...PAGE_WAIT, hidden: true });
  const file = path.join(box.paths.workspaceDir, 'migrator', 'answer.txt');
  t.equal(await waitFor('the answer in the workspace', () => readFile(file, 'utf8').catch(() => undefined)), 'answer=y\n', 'typed into the agent, then Enter');
  t.match((await box.api(`/v1/input-requests/${request.id}`)).json['inputRequest'], { state: 'answered', closed: { answer: { length: 1 } } });
  await page.click('[data-testid="tab-agents"]');
  await page.waitForSelector('[data-testid="agent-migrator"] [data-testid="agent-waiting"]', { ...PAGE_WAIT, hidden: true });
  await shot('2-answered');
});

t.test("a password prompt's answer box hides what is typed", async (t) => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${#p} (the length of what was read)
  const agentId = await spawnTty('signer', 'read -s -p "Enter passphrase for key: " p; echo; echo "length=${#p}" > length.txt; sleep 30');
  const request = await openOf(agentId);
  const card = `[data-testid="input-${request.id}"]`;
  await page.waitForSelector(card, PAGE_WAIT);
  t.equal(await page.$eval(`${card} [data-testid="input-answer"]`, (e) => (e as HTMLInputElement).type), 'password');
  await page.type(`${card} [data-testid="input-answer"]`, 'correct horse');
  await shot('3-password');
  await page.click(`${card} [data-testid="input-send"]`);
  const file = path.join(box.paths.workspaceDir, 'signer', 'length.txt');
  t.equal(await waitFor('the agent to read it', () => readFile(file, 'utf8').catch(() => undefined)), 'length=13\n');
  await page.waitForSelector('[data-testid="input-requests"]', { ...PAGE_WAIT, hidden: true });
});

t.test('the page had no uncaught exception or failed request, and only the session check before sign-in answered 401', async (t) => {
  t.same(problems.pageErrors, []);
  t.same(problems.failedRequests, []);
  t.same(problems.httpErrors, ['GET /ui/session 401']);
  t.equal(problems.consoleErrors.length, 1, problems.consoleErrors.join(' | '));
});
