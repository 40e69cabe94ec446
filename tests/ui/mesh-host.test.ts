// The mesh view of a mesh host in headless Chromium: members registered and beating over real NIP-98 calls appear live with box name, full key, health, capacity and last heartbeat, and as evicted once silent.
import path from 'node:path';
import t from 'tap';
import type { Page } from 'puppeteer-core';
import { beatBody, registrationBody, TestMember } from '../api/support/mesh-member.js';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, type PageProblems, signIn } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const alice = new TestMember();
const bob = new TestMember();
const manifest = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n\n[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${alice.identity.npub}", "${bob.identity.npub}"]\n`;

let ui: UiBox;
let page: Page;
let problems: PageProblems;
let opened: UiPage | undefined;
// The box's clock: moved forward to pass the eviction deadline without waiting.
let offsetMs = 0;

t.before(async () => {
  opened = await openUiPage(manifest, { clock: () => new Date(Date.now() + offsetMs) });
  ({ ui, page, problems } = opened);
});
t.teardown(() => opened?.close());

t.test('members appear live with state, health, capacity and last heartbeat', async (t) => {
  const { text, waitText } = pageText(page);
  const base = ui.box.server.apiUrl;
  const reg = await alice.call('POST', `${base}/v1/register`, registrationBody(alice.identity, { name: 'alice-box' }));
  t.equal(reg.status, 201, 'alice registers');
  const beat = await alice.call('POST', `${base}/v1/mesh/sessions/${reg.json['session_id'] as string}/heartbeat`, beatBody(3));
  t.equal(beat.status, 200, 'and beats');

  await page.goto(`${base}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="api-key"]', PAGE_WAIT);
  await signIn(page, ui.box.key);
  await waitText('[data-testid="readiness"]', 'READY');
  await page.click('[data-testid="tab-mesh"]');
  await waitText('[data-testid="mesh-members"]', alice.identity.npub);
  const row = '[data-testid="mesh-member"]:first-child';
  t.equal(await text(`${row} [data-testid="member-name"]`), 'alice-box', 'the box name it registered with');
  t.equal(await text(`${row} [data-testid="member-npub"]`), alice.identity.npub, 'the whole npub');
  t.equal(await text(`${row} [data-testid="member-state"]`), 'registered');
  t.equal(await text(`${row} [data-testid="member-health"]`), 'ok', 'the health the member reported');
  t.equal(await text(`${row} [data-testid="member-capacity"]`), '3 agents running, 2.0 KiB free', 'its capacity from the heartbeat, in readable units');
  t.notMatch(await text(row), /—\s*$/, 'a last heartbeat time');
  // Copy puts the whole key on the clipboard.
  await opened!.browser.defaultBrowserContext().overridePermissions(base, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  await page.click(`${row} button[aria-label^="Copy"]`);
  await waitText(`${row} [role="status"]`, 'Copied');
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), alice.identity.npub, 'the clipboard holds the npub');

  // A member registering while the page is open appears without a reload.
  t.equal((await bob.call('POST', `${base}/v1/register`, registrationBody(bob.identity))).status, 201);
  await waitText('[data-testid="mesh-members"]', bob.identity.npub);
  t.match(
    await text('[data-testid="mesh-member"]:nth-child(2)'),
    /unnamed.*no heartbeat yet.*2 agents running, 1\.0 KiB free/s,
    'a member that sent no name and no heartbeat yet',
  );
  await page.screenshot({ path: path.join(screenshotDir(), '8-mesh-host.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation on the members');
});

t.test('a member silent for three intervals shows as evicted, not with its last health', async (t) => {
  const { text, waitText } = pageText(page);
  offsetMs += 16_000;
  // Nothing else happens: the dashboard's own check lists the members, which evicts them.
  await waitText('[data-testid="mesh-member"]:first-child [data-testid="member-state"]', 'evicted');
  t.match(await text('[data-testid="mesh-member"]:first-child [data-testid="member-health"]'), /^evicted .*: no heartbeat for three intervals$/);
  t.notMatch(await text('[data-testid="mesh-member"]:first-child [data-testid="member-health"]'), /\bok\b/, 'its last reported health is not shown as current');
  const health = await ui.box.api('/health', { auth: false });
  t.match(health.json['federation'], { members: { registered: 0, evicted: 2 } }, '/health counts them as the page shows them');
  await page.screenshot({ path: path.join(screenshotDir(), '8-mesh-host-evicted.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation with evicted members');
});

t.test('no page error, failed request or console error beyond the signed-out probe', async (t) => {
  t.same(problems.pageErrors, []);
  t.same(problems.failedRequests, []);
  t.same(problems.httpErrors, ['GET /ui/session 401']);
  t.equal(problems.consoleErrors.length, 1, problems.consoleErrors.join(' | '));
});
