// The dashboard in headless Chromium against a real API (local orchestrator, beads, events, memory): every view, live updates, spawn options, confirmations, a11y, no page errors.
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import type { Page } from 'puppeteer-core';
import type { TestServer } from '../api/support/harness.js';
import { fillField, inspectPage, PAGE_WAIT, pageText, screenshotDir, type PageProblems } from './support/browser.js';
import { sealBox, type UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const manifest = '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "local-ruvector"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';

let ui: UiBox;
let uiRoot: string;
let box: TestServer;
let page: Page;
let problems: PageProblems;
let opened: UiPage | undefined;
let text: ReturnType<typeof pageText>['text'];
let waitText: ReturnType<typeof pageText>['waitText'];
const shots = screenshotDir();

t.before(async () => {
  // Not sealed yet: the overview must show NOT READY first, then READY when the seal appears.
  opened = await openUiPage(manifest, { seal: false });
  ({ ui, page, problems } = opened);
  ({ box, uiRoot } = ui);
  ({ text, waitText } = pageText(page));
  t.comment(`screenshots: ${shots}`);
});
t.teardown(() => opened?.close());

const inspect = (tt: Test, name: string): Promise<void> => inspectPage(tt, page, shots, name);
const fill = (testId: string, value: string): Promise<void> => fillField(page, testId, value);

async function openTab(id: string): Promise<void> {
  await page.click(`[data-testid="tab-${id}"]`);
  await page.waitForSelector(`[data-testid="view-${id}"]`, PAGE_WAIT);
}

t.test('the bundle is within budget and the /v1 routes refuse a caller without a session', async (t) => {
  const all = await readdir(path.join(uiRoot, 'assets'));
  // The page's script and stylesheet; the terminal emulator is a chunk of its own, loaded when a terminal is shown.
  const assets = all.filter((f) => f.startsWith('app-'));
  t.equal(assets.length, 2, `one script and one stylesheet: ${all.join(', ')}`);
  t.same(
    all.filter((f) => !f.startsWith('app-')).map((f) => f.replace(/-[A-Z0-9]+\./, '-HASH.')),
    ['terminal-screen-HASH.js'],
    'and the terminal chunk',
  );
  t.ok(assets.some((f) => /^app-[A-Z0-9]+\.js$/.test(f)) && assets.some((f) => /^app-[A-Z0-9]+\.css$/.test(f)), 'their names carry a content hash');
  let gzip = 0;
  for (const f of assets) gzip += gzipSync(await readFile(path.join(uiRoot, 'assets', f)), { level: 9 }).length;
  t.ok(gzip <= 150 * 1024, `JS + CSS ${(gzip / 1024).toFixed(1)} KiB gzip (budget 150 KiB)`);

  for (const route of ['/v1/meta', '/v1/agents', '/v1/dashboard/stream']) {
    const res = await fetch(box.server.apiUrl + route);
    t.equal(res.status, 401, `${route} without a session or key`);
    t.match(await res.json(), { error: 'ABX_ERR_AUTH_REQUIRED' });
  }
  const forged = await fetch(`${box.server.apiUrl}/v1/meta`, { headers: { cookie: `agentbox_session=${'A'.repeat(43)}` } });
  t.equal(forged.status, 401, 'a cookie the box never issued');
});

t.test('sign in, see NOT READY with its reason, then READY as soon as the box is sealed', async (t) => {
  await page.goto(`${box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="view-sign-in"]', PAGE_WAIT);
  await inspect(t, '1-sign-in');
  await page.type('[data-testid="api-key"]', 'not-the-key');
  await page.click('[data-testid="sign-in"]');
  await waitText('[data-testid="sign-in-error"]', 'ABX_ERR_AUTH_INVALID');

  await page.$eval('[data-testid="api-key"]', (el) => ((el as HTMLInputElement).value = ''));
  await page.type('[data-testid="api-key"]', box.key);
  await page.click('[data-testid="sign-in"]');
  const signedIn = Date.now();
  await waitText('[data-testid="readiness"]', 'NOT READY');
  t.comment(`sign-in click to the overview on screen: ${Date.now() - signedIn} ms`);
  t.match(await text('[data-testid="readiness-reason"]'), /bootstrap seal/);
  t.match(await text('[data-testid="missing"]'), /seal/);
  t.match(await text('[data-testid="session-info"]'), /Signed in with the API key, until /);
  await inspect(t, '2-overview-not-ready');

  await sealBox(box);
  await page.waitForFunction(() => document.querySelector('[data-testid="readiness"]')?.textContent === 'READY', PAGE_WAIT);
  t.match(await text('[data-testid="requirements"]'), /seal/);
  t.equal(await page.$('[data-testid="missing"]'), null, 'nothing missing any more');
  await waitText('[data-testid="slot-orchestrator"]', 'healthy');
  t.match(await text('[data-testid="slot-pods"]'), /off/);
  t.match(await text('[data-testid="manifest-sha256"]'), /^[0-9a-f]{24}/);
  // The sandbox mode as /health reports it, in the words of docs/user/sandbox.md.
  const sandbox = (await box.api('/health', { auth: false })).json['sandbox'] as { mode: string; namespaces?: { active?: boolean } };
  const expected =
    sandbox.mode === 'confined'
      ? sandbox.namespaces?.active
        ? 'bubblewrap + launcher'
        : 'launcher alone'
      : sandbox.mode === 'unconfined'
        ? 'off'
        : sandbox.mode;
  t.equal(await text('[data-testid="sandbox-mode"]'), expected, `the overview names the sandbox mode (${JSON.stringify(sandbox)})`);
  t.match(await text('[data-testid="sandbox-detail"]'), sandbox.mode === 'confined' ? /Landlock, seccomp and rlimits/ : /./);
  t.notOk(page.url().includes(box.key), 'the key is not in the URL');
  t.same(
    await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]),
    [0, 0, ''],
    'nothing kept in storage; the session cookie is HttpOnly',
  );
  await inspect(t, '2-overview');
});

t.test('spawn an agent, follow its output live, terminate it', async (t) => {
  await openTab('agents');
  await page.type('[data-testid="spawn-name"]', 'ticker');
  await page.type('[data-testid="spawn-command"]', '/bin/sh');
  await page.type('[data-testid="spawn-args"]', '-c\ni=0; while :; do i=$((i+1)); echo "line-$i"; sleep 0.2; done');
  await page.click('[data-testid="spawn"]');
  await waitText('[data-testid="agent-ticker"] [data-testid="agent-state"]', 'running');
  await waitText('[data-testid="agent-output"]', 'line-1\n');
  // Live: lines the agent writes after the first one was shown keep arriving in the open page.
  const shown = (await text('[data-testid="agent-output"]')).split('\n').filter(Boolean).length;
  await waitText('[data-testid="agent-output"]', `line-${shown + 3}\n`);
  t.pass(`the output grew from ${shown} lines while the page watched`);
  await inspect(t, '3-agents');

  // Terminate asks first; Cancel leaves the agent running.
  await page.click('[data-testid="agent-ticker"] [data-testid="terminate"]');
  await waitText('[data-testid="agent-ticker"] [data-testid="terminate-confirm"]', 'Terminate ticker?');
  // The focus moves once the question is drawn (an effect after the render): wait for it there.
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'terminate-cancel', PAGE_WAIT);
  t.pass('the focus is on Cancel, not on the confirming button');
  await inspect(t, '3-agents-confirm-terminate');
  await page.click('[data-testid="agent-ticker"] [data-testid="terminate-cancel"]');
  await page.waitForSelector('[data-testid="agent-ticker"] [data-testid="terminate"]', PAGE_WAIT);
  const listed = (await box.api('/v1/agents')).json['agents'] as Array<{ name: string; state: string }>;
  t.equal(listed.find((a) => a.name === 'ticker')?.state, 'running', 'a cancelled terminate leaves the agent running');
  await page.click('[data-testid="agent-ticker"] [data-testid="terminate"]');
  await page.click('[data-testid="agent-ticker"] [data-testid="terminate-yes"]');
  await waitText('[data-testid="agent-ticker"] [data-testid="agent-state"]', 'terminated');
  await waitText('[data-testid="output-ended"]', 'terminated');
  t.equal(await page.$('[data-testid="agent-ticker"] [data-testid="terminate"]'), null, 'an ended agent offers no terminate');
});

t.test('spawn with a working directory, environment and limits: the table and the details show command, duration, exit code and reason', async (t) => {
  await mkdir(path.join(box.paths.workspaceDir, 'shared', 'place'), { recursive: true });
  await fill('spawn-name', 'greeter');
  await fill('spawn-command', '/bin/sh');
  await fill('spawn-args', '-c\necho "$GREETING from $(pwd)"; exit 3');
  await fill('spawn-cwd', 'shared/place');
  await fill('spawn-env', 'GREETING=hello <b>there</b>');
  await fill('spawn-memory', '64m');
  await fill('spawn-processes', '8');
  await page.click('[data-testid="spawn"]');
  await waitText('[data-testid="agent-greeter"] [data-testid="agent-exit"]', '3');
  const row = '[data-testid="agent-greeter"]';
  t.equal(
    await text(`${row} [data-testid="agent-command"]`),
    '/bin/sh -c "echo \\"$GREETING from $(pwd)\\"; exit 3"',
    'the command line, an argument with spaces quoted',
  );
  t.match(await text(`${row} [data-testid="agent-duration"]`), /^\d+ s$/, 'how long it ran');
  t.equal(await text(`${row} [data-testid="agent-reason"]`), '—', 'it ended on its own: no reason of the box');
  t.match(await text(row), /64\.0 MiB, .* 8 proc\./, 'the lower budgets it asked for');
  // The spawn selected it: its details and its output, where the environment and directory show.
  await waitText('[data-testid="detail-exit"]', '3');
  t.equal(await text('[data-testid="detail-state"]'), 'failed', 'a non-zero exit');
  t.match(await text('[data-testid="detail-entries"]'), /, limit 200,000$/, 'the entry budget (sandbox.limits.entries) beside what the last walk counted');
  await waitText('[data-testid="agent-output"]', 'hello <b>there</b> from ');
  t.match(await text('[data-testid="agent-output"]'), /shared\/place\n/, 'it ran in the directory asked for');
  t.equal(await page.$('[data-testid="agent-output"] b'), null, 'the agent-written markup stays text');
  t.equal(await page.$('[data-testid="agent-refusals"]'), null, 'no refusals section where GET /v1/agents/:id reports none');
  await inspect(t, '3-agents-detail');

  // A budget the box enforces: the reason column says why it ended the agent.
  await fill('spawn-name', 'spinner');
  await fill('spawn-args', '-c\nwhile :; do :; done');
  await fill('spawn-cwd', '');
  await fill('spawn-env', '');
  await fill('spawn-memory', '');
  await fill('spawn-processes', '');
  await fill('spawn-cpu', '1');
  await page.click('[data-testid="spawn"]');
  await waitText('[data-testid="agent-spinner"] [data-testid="agent-reason"]', 'limit:cpu');
  t.match(await text('[data-testid="agent-spinner"] [data-testid="agent-exit"]'), /^SIG[A-Z]+$/, 'ended by a signal');
  await waitText('[data-testid="detail-reason"]', 'limit:cpu');

  // What the form can tell before sending: a malformed environment line.
  await fill('spawn-name', 'malformed');
  await fill('spawn-env', 'no equals sign');
  await page.click('[data-testid="spawn"]');
  await waitText('[data-testid="spawn-error"]', 'Environment line 1');
  await fill('spawn-env', '');
  await fill('spawn-memory', 'lots');
  await page.click('[data-testid="spawn"]');
  await waitText('[data-testid="spawn-error"]', 'Memory limit');
  t.equal(await page.$('[data-testid="agent-malformed"]'), null, 'nothing was spawned');
});

t.test('create a bead, claim it, close it: the board moves it', async (t) => {
  await openTab('beads');
  await page.type('[data-testid="bead-title"]', 'Write the release notes');
  await page.click('[data-testid="create-bead"]');
  await waitText('[data-testid="column-open"]', 'Write the release notes');
  await waitText('[data-testid="ready-queue"]', 'Write the release notes');
  await inspect(t, '4-beads');
  await page.click('[data-testid="column-open"] [data-testid="claim"]');
  await waitText('[data-testid="column-claimed"]', 'claimed by operator');
  t.notMatch(await text('[data-testid="column-open"]'), /release notes/);
  await page.click('[data-testid="column-claimed"] [data-testid="close"]');
  await waitText('[data-testid="column-closed"]', 'success');
  t.notMatch(await text('[data-testid="column-claimed"]'), /release notes/);
});

t.test('an event posted through the API appears in the feed; the kind filter and start time apply', async (t) => {
  await openTab('events');
  await waitText('[data-testid="events-live"]', 'Live');
  const posted = await box.api('/v1/events', { body: { kind: 'test.ui', data: { note: 'hello from the test' } } });
  t.equal(posted.status, 201);
  await waitText('[data-testid="event-feed"]', 'hello from the test');
  await box.api('/v1/events', { body: { kind: 'test.other', data: { note: 'another kind' } } });
  await waitText('[data-testid="event-feed"]', 'another kind');
  // A kind the page knows nothing of (as the audit trail writes them): its fields, each as text.
  const audit = await box.api('/v1/events', {
    body: { kind: 'audit.egress.changed', source: 'test', data: { actor: 'operator', added: ['example.org'], detail: '<img src=x id=injected>' } },
  });
  t.equal(audit.status, 201);
  await waitText('[data-testid="event-feed"]', 'audit.egress.changed');
  const fields = await page.$$eval('[data-testid="event"]:first-child [data-testid="event-data"] .event-field', (els) =>
    els.map((e) => [e.querySelector('dt')?.textContent, e.querySelector('dd')?.textContent]),
  );
  t.same(
    fields,
    [
      ['actor', 'operator'],
      ['added', '["example.org"]'],
      ['detail', '<img src=x id=injected>'],
    ],
    'every field by name, nested values as JSON',
  );
  t.equal(await page.$('#injected'), null, 'data is shown as text, never as markup');
  await inspect(t, '5-events');

  // Only test.ui since a minute ago: the earlier test.ui event is replayed, test.other is not.
  await page.type('[data-testid="event-kinds"]', 'test.ui');
  const since = new Date(Date.now() - 60_000 - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  await page.$eval(
    '[data-testid="event-since"]',
    (el, v) => {
      const input = el as HTMLInputElement;
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    since,
  );
  await page.click('[data-testid="apply-filter"]');
  await waitText('[data-testid="event-feed"]', 'hello from the test');
  await waitText('[data-testid="events-live"]', 'Live');
  t.notMatch(await text('[data-testid="event-feed"]'), /another kind/);
  const kinds = await page.$$eval('[data-testid="event-kind"]', (els) => els.map((e) => e.textContent));
  t.ok(kinds.length > 0 && kinds.every((k) => k === 'test.ui'), `only test.ui: ${kinds.join(', ')}`);
});

t.test('search a memory namespace', async (t) => {
  t.equal((await box.api('/v1/memory/notes', { body: { text: 'the deploy key rotates every Monday' } })).status, 201);
  await openTab('memory');
  await page.$eval('[data-testid="memory-namespace"]', (el) => ((el as HTMLInputElement).value = ''));
  await page.type('[data-testid="memory-namespace"]', 'notes');
  await page.type('[data-testid="memory-text"]', 'when does the deploy key rotate');
  await page.click('[data-testid="memory-search"]');
  await waitText('[data-testid="memory-hits"]', 'the deploy key rotates every Monday');
  await inspect(t, '6-memory');
  await page.$eval('[data-testid="memory-namespace"]', (el) => ((el as HTMLInputElement).value = ''));
  await page.type('[data-testid="memory-namespace"]', 'bad name');
  await page.click('[data-testid="memory-search"]');
  await waitText('[data-testid="memory-error"]', 'ABX_ERR_VALIDATION');
});

t.test('the mesh view says this box is no mesh host; the tabs move with the arrow keys', async (t) => {
  await openTab('mesh');
  await waitText('[data-testid="not-mesh-host"]', 'not a mesh host');
  t.equal(
    await text('[data-testid="not-mesh-host"]'),
    'This box is not a mesh host (mesh.mode = "standalone"): only a host (mesh.mode = "host") lists members.',
    'said once, with the mode',
  );
  await inspect(t, '7-mesh');
  // The tabs follow the ARIA pattern: arrow keys move the selection and the focus, wrapping around.
  await page.focus('[data-testid="tab-mesh"]');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('[data-testid="view-overview"]', PAGE_WAIT);
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('[data-testid="view-mesh"]', PAGE_WAIT);
  t.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'tab-mesh', 'the focus follows the selected tab');
});

t.test('sign out: back at sign-in, and the old session is refused', async (t) => {
  const cookie = (await page.cookies()).find((c) => c.name === 'agentbox_session');
  t.ok(cookie?.httpOnly, 'the session cookie is HttpOnly');
  t.equal(cookie?.sameSite, 'Strict');
  await page.click('[data-testid="sign-out"]');
  await page.waitForSelector('[data-testid="view-sign-in"]', PAGE_WAIT);
  t.match(await text('[data-testid="sign-in-notice"]'), /Signed out/);
  const after = await fetch(`${box.server.apiUrl}/v1/meta`, { headers: { cookie: `agentbox_session=${cookie!.value}` } });
  t.equal(after.status, 401, 'the revoked session no longer authenticates');
});

t.test('the page had no console error, uncaught exception or failed request', async (t) => {
  t.same(problems.pageErrors, [], 'no uncaught exception');
  t.same(problems.failedRequests, [], 'no failed request');
  // The only refusals: the session probe on load (signed out: 401), the wrong key, the bad namespace.
  t.same(problems.httpErrors, ['GET /ui/session 401', 'POST /ui/session 401', 'POST /v1/memory/bad%20name/search 400']);
  t.equal(
    problems.consoleErrors.length,
    problems.httpErrors.length,
    `console errors are the browser's notes of those refusals only: ${problems.consoleErrors.join(' | ')}`,
  );
  t.ok(
    problems.consoleErrors.every((m) => m.startsWith('Failed to load resource: the server responded with a status of 40')),
    'no other console error',
  );
});
