// Dashboard sessions in headless Chromium against a real API: sign-in with a Nostr key (NIP-98 from a NIP-07 signer), a session revoked elsewhere signing the page out live; views of slots that are off.
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';
import t from 'tap';
import type { Page } from 'puppeteer-core';
import { PAGE_WAIT, pageText, seriousViolations, type PageProblems } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const operator = generateSecretKey();
const stranger = generateSecretKey();
const manifest = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n\n[mesh]\noperator_pubkeys = ["${getPublicKey(operator)}"]\n`;

let ui: UiBox;
let page: Page;
let problems: PageProblems;
let opened: UiPage | undefined;
// The key the page's signer signs with; the test switches it between attempts.
let signingKey = stranger;

t.before(async () => {
  opened = await openUiPage(manifest);
  ({ ui, page, problems } = opened);
  // A NIP-07 signer as an extension would provide it: the page hands the event over, the key stays in the test.
  await page.exposeFunction('abxTestSign', (template: EventTemplate) => finalizeEvent(template, signingKey));
  await page.evaluateOnNewDocument(() => {
    const sign = (globalThis as unknown as { abxTestSign: (e: unknown) => Promise<unknown> }).abxTestSign;
    (globalThis as unknown as { nostr: unknown }).nostr = { getPublicKey: async () => '', signEvent: (e: unknown) => sign(e) };
  });
});
t.teardown(() => opened?.close());

t.test('a listed operator key signs in, a key not listed is refused with the reason; views of slots that are off say so', async (t) => {
  const { text, waitText } = pageText(page);
  await page.goto(`${ui.box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="sign-in-nostr"]', PAGE_WAIT);
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation on the sign-in with a signer');

  await page.click('[data-testid="sign-in-nostr"]');
  await waitText('[data-testid="sign-in-error"]', 'ABX_ERR_AUTH_INVALID');

  signingKey = operator;
  await page.click('[data-testid="sign-in-nostr"]');
  await waitText('[data-testid="readiness"]', 'READY');
  t.match(await text('[data-testid="session-info"]'), /Signed in with a Nostr key/);
  const session = await page.evaluate(async () => (await fetch('/ui/session')).json());
  t.match(session, { via: 'nip98' }, 'the session was made from the NIP-98 token');

  // This box has its beads, events and memory slots off: those views say so instead of failing.
  for (const [tab, what] of [
    ['beads', /beads slot is not available on this box: .*off/i],
    ['events', /event log is not available on this box: the events slot is off/],
    ['memory', /Memory is not available on this box: the memory slot is off/],
  ] as const) {
    await page.click(`[data-testid="tab-${tab}"]`);
    await page.waitForSelector(`[data-testid="view-${tab}"] [data-testid="unavailable"]`, PAGE_WAIT);
    t.match(await text('[data-testid="unavailable"]'), what, `${tab}: unavailable, with the reason`);
  }
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation on an unavailable view');

  await page.click('[data-testid="sign-out"]');
  await page.waitForSelector('[data-testid="view-sign-in"]', PAGE_WAIT);
});

t.test('a session revoked elsewhere: the page is back at sign-in at once, with a note', async (t) => {
  const { waitText } = pageText(page);
  signingKey = operator;
  await page.click('[data-testid="sign-in-nostr"]');
  await waitText('[data-testid="readiness"]', 'READY');
  const cookie = (await page.cookies()).find((c) => c.name === 'agentbox_session')!;
  const { csrfToken } = (await page.evaluate(async () => (await fetch('/ui/session')).json())) as { csrfToken: string };
  const base = ui.box.server.apiUrl;
  const revoked = await fetch(`${base}/ui/session`, {
    method: 'DELETE',
    headers: { cookie: `agentbox_session=${cookie.value}`, 'x-csrf-token': csrfToken, origin: new URL(base).origin },
  });
  t.equal(revoked.status, 204, 'revoked through the API');

  // No action needed: the live stream's last record says the session ended.
  await waitText('[data-testid="sign-in-notice"]', 'Your session ended');
});

t.test('the page had no uncaught exception or failed request, and only the refusals the test provoked', async (t) => {
  t.same(problems.pageErrors, []);
  t.same(problems.failedRequests, []);
  t.same(problems.httpErrors, ['GET /ui/session 401', 'POST /ui/session 401']);
  t.equal(problems.consoleErrors.length, 2, problems.consoleErrors.join(' | '));
});
