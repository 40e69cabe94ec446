// The approvals view in headless Chromium against a real box: supervised spawns a [policy] rule asks about are listed live,
// approved in one click through the session (unsigned), approved signed by the page's NIP-07 signer, and denied.
import path from 'node:path';
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';
import type { Page } from 'puppeteer-core';
import t from 'tap';
import { waitFor, type TestServer } from '../api/support/harness.js';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, signIn } from './support/browser.js';
import { openUiPage } from './support/ui-page.js';

type Approval = {
  id: string;
  agent: string;
  state: string;
  decision?: {
    outcome: string;
    scope?: string;
    reason: string;
    by?: { signed: boolean; pubkey?: string; actor: { kind: string }; signature?: { id: string; sig: string } };
  };
};
type Stored = { kind: string; data: Record<string, unknown> };

const operator = generateSecretKey();
// Requests wait far longer than any step of the test: no decision races the box's timeout.
const manifest = [
  '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"',
  `[mesh]\noperator_pubkeys = ["${getPublicKey(operator)}"]`,
  '[policy]\ndefault = "allow"\napproval_timeout_sec = 600',
  '[[policy.rules]]\nid = "sleep-asks"\naction = "spawn"\ndecision = "ask"\ncommand = "sleep"\nargs = ["30"]',
].join('\n');

const opened = await openUiPage(manifest);
t.teardown(() => opened.close());
const { page, ui, problems } = opened;
const box: TestServer = ui.box;
const { text, waitText } = pageText(page);
const shot = (name: string) => page.screenshot({ path: path.join(screenshotDir(), `approvals-${name}.png`), fullPage: true });

/** A supervised spawn the rule asks about: the call stays open until a decision. */
const spawnSupervised = (name: string) => box.api('/v1/agents', { body: { name, command: '/bin/sleep', args: ['30'], autonomy: 'supervised' } });
const pendingFor = (name: string) =>
  waitFor(`the request of ${name}`, async () => ((await box.api('/v1/approvals')).json['approvals'] as Approval[]).find((a) => a.agent === name));
/** The card of `name`'s request, once the page lists it. */
async function cardOf(p: Page, name: string): Promise<string> {
  const a = await pendingFor(name);
  const card = `[data-testid="approval-${a.id}"]`;
  await p.waitForSelector(card, PAGE_WAIT);
  return card;
}
const approvalOf = async (id: string) => (await box.api(`/v1/approvals/${id}`)).json['approval'] as Approval;

t.test('a held spawn is listed live with its rule and arguments, the tab counts it, one click approves it unsigned and the agent starts', async (t) => {
  await page.goto(`${box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await signIn(page, box.key);
  await page.waitForSelector('[data-testid="tab-approvals"]', PAGE_WAIT);
  await page.click('[data-testid="tab-approvals"]');
  await page.waitForSelector('[data-testid="no-approvals"]', PAGE_WAIT);
  t.equal(await page.$('[data-testid="approvals-pending"]'), null, 'no badge while nothing waits');

  const answer = spawnSupervised('builder');
  const card = await cardOf(page, 'builder');
  await waitText('[data-testid="approvals-pending"]', '1');
  t.match(await text(`${card} [data-testid="approval-agent"]`), 'builder');
  t.match(await text(`${card} [data-testid="approval-action"]`), 'spawn');
  t.match(await text(`${card} [data-testid="approval-rule"]`), /rule 0 \("sleep-asks"\): matched command=sleep/);
  t.match(await text(`${card} [data-testid="approval-arguments"]`), /command=\/bin\/sleep, args=\["30"\]/);
  t.match(await text(`${card} [data-testid="approval-left"]`), /^(9|10) min/, 'the time left of a 600 s request');
  t.equal(await page.$(`${card} [data-testid="approval-sign"]`), null, 'no signing choice without a signer');
  await shot('1-pending');
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation with a request listed');

  const id = card.slice('[data-testid="approval-'.length, -2);
  await page.click(`${card} [data-testid="approve"]`);
  const spawned = await answer;
  t.equal(spawned.status, 201, 'the held spawn went ahead');
  await page.waitForSelector('[data-testid="no-approvals"]', PAGE_WAIT);
  t.equal(await page.$('[data-testid="approvals-pending"]'), null, 'the badge goes with the last request');
  t.match(
    await approvalOf(id),
    { state: 'approved', decision: { scope: 'once', by: { signed: false, actor: { kind: 'session' } } } },
    'decided through the session, unsigned',
  );
  const agentId = (spawned.json['agent'] as { id: string }).id;
  await page.click('[data-testid="tab-agents"]');
  await waitText('[data-testid="agent-builder"]', 'running');
  await box.api(`/v1/agents/${agentId}?graceMs=0`, { method: 'DELETE' });
});

t.test('with a NIP-07 signer in the page the decision is signed by its key; a deny with a reason refuses the spawn', async (t) => {
  // A signer as an extension provides it: the page hands the event over, the key stays in the test.
  await page.exposeFunction('abxTestSign', (template: EventTemplate) => finalizeEvent(template, operator));
  await page.evaluateOnNewDocument(() => {
    const sign = (globalThis as unknown as { abxTestSign: (e: unknown) => Promise<unknown> }).abxTestSign;
    (globalThis as unknown as { nostr: unknown }).nostr = { getPublicKey: async () => '', signEvent: (e: unknown) => sign(e) };
  });
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('[data-testid="tab-approvals"]', PAGE_WAIT);
  await page.click('[data-testid="tab-approvals"]');

  const answer = spawnSupervised('releaser');
  const card = await cardOf(page, 'releaser');
  const id = card.slice('[data-testid="approval-'.length, -2);
  t.ok(
    await page.$eval(`${card} [data-testid="approval-sign"]`, (el) => (el as HTMLInputElement).checked),
    'signing is chosen by default where a signer exists',
  );
  await page.type(`${card} [data-testid="approval-reason"]`, 'release 1.4');
  await shot('2-signing');
  await page.click(`${card} [data-testid="approve"]`);
  const spawned = await answer;
  t.equal(spawned.status, 201, 'the signed approval let the spawn go ahead');
  const decided = await approvalOf(id);
  t.match(
    decided,
    { state: 'approved', decision: { reason: 'release 1.4', by: { signed: true, pubkey: getPublicKey(operator) } } },
    'recorded as signed by the operator key',
  );
  const events = await waitFor('approval.decided on record', async () => {
    const all = ((await box.api('/v1/events?limit=1000')).json['items'] as Stored[]).filter((e) => e.kind === 'approval.decided' && e.data['request'] === id);
    return all.length > 0 ? all : undefined;
  });
  t.match(
    events[0]!.data,
    { outcome: 'approved', signed: true, approver: getPublicKey(operator), signature: decided.decision!.by!.signature },
    'the log holds the key and the signature',
  );
  await box.api(`/v1/agents/${(spawned.json['agent'] as { id: string }).id}?graceMs=0`, { method: 'DELETE' });

  const refused = spawnSupervised('intruder');
  const denyCard = await cardOf(page, 'intruder');
  const denyId = denyCard.slice('[data-testid="approval-'.length, -2);
  await page.click(`${denyCard} [data-testid="approval-sign"]`);
  await page.type(`${denyCard} [data-testid="approval-reason"]`, 'not this one');
  await page.click(`${denyCard} [data-testid="deny"]`);
  t.match(
    await refused,
    { status: 403, json: { error: 'ABX_ERR_POLICY_DENIED', message: /denied by session .*not this one/ } },
    'the spawn is refused with the reason',
  );
  t.match(await approvalOf(denyId), { state: 'denied', decision: { by: { signed: false } } }, 'unchecked: decided unsigned through the session');
  await page.waitForSelector('[data-testid="no-approvals"]', PAGE_WAIT);
  await shot('3-decided');
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation');
});

t.test('the page had no uncaught exception or failed request, and only the session check before sign-in answered 401', async (t) => {
  t.same(problems.pageErrors, []);
  t.same(problems.failedRequests, []);
  t.same(problems.httpErrors, ['GET /ui/session 401']);
  t.equal(problems.consoleErrors.length, 1, problems.consoleErrors.join(' | '));
});
