// The mesh view of a mesh host in headless Chromium: members registered and beating over real NIP-98 calls appear live with health, capacity and last heartbeat.
import path from 'node:path';
import t from 'tap';
import type { Page } from 'puppeteer-core';
import { beatBody, registrationBody, TestMember } from '../api/support/mesh-member.js';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, type PageProblems } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const alice = new TestMember();
const bob = new TestMember();
const manifest = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n\n[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${alice.identity.npub}", "${bob.identity.npub}"]\n`;

let ui: UiBox;
let page: Page;
let problems: PageProblems;
let opened: UiPage | undefined;

t.before(async () => {
  opened = await openUiPage(manifest);
  ({ ui, page, problems } = opened);
});
t.teardown(() => opened?.close());

t.test('members appear live with state, health, capacity and last heartbeat', async (t) => {
  const { text, waitText } = pageText(page);
  const base = ui.box.server.apiUrl;
  const reg = await alice.call('POST', `${base}/v1/register`, registrationBody(alice.identity));
  t.equal(reg.status, 201, 'alice registers');
  const beat = await alice.call('POST', `${base}/v1/mesh/sessions/${reg.json['session_id'] as string}/heartbeat`, beatBody(3));
  t.equal(beat.status, 200, 'and beats');

  await page.goto(`${base}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="api-key"]', PAGE_WAIT);
  await page.type('[data-testid="api-key"]', ui.box.key);
  await page.click('[data-testid="sign-in"]');
  await waitText('[data-testid="readiness"]', 'READY');
  await page.click('[data-testid="tab-mesh"]');
  await waitText('[data-testid="mesh-members"]', alice.identity.npub.slice(0, 16));
  const row = await text('[data-testid="mesh-members"] tbody');
  t.match(row, /registered/);
  t.match(row, /ok/, 'the health the member reported');
  t.match(row, /agents_running=3/, 'its capacity from the heartbeat');
  t.notMatch(row, /—\s*$/, 'a last heartbeat time');

  // A member registering while the page is open appears without a reload.
  t.equal((await bob.call('POST', `${base}/v1/register`, registrationBody(bob.identity))).status, 201);
  await waitText('[data-testid="mesh-members"]', bob.identity.npub.slice(0, 16));
  await page.screenshot({ path: path.join(screenshotDir(), '8-mesh-host.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation on the members');
});

t.test('no page error, failed request or console error beyond the signed-out probe', async (t) => {
  t.same(problems.pageErrors, []);
  t.same(problems.failedRequests, []);
  t.same(problems.httpErrors, ['GET /ui/session 401']);
  t.equal(problems.consoleErrors.length, 1, problems.consoleErrors.join(' | '));
});
