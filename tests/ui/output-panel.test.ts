// The agent output panel in headless Chromium: output kept in blocks, earlier blocks left untouched as lines arrive live, the view following the end.
import t from 'tap';
import type { Page } from 'puppeteer-core';
import { PAGE_WAIT, type PageProblems, signIn } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';

// 200 numbered lines, each its own write 1 ms apart, then a tick every 50 ms until terminated:
// the ticks are lines that certainly arrive after the test has looked at the panel.
const AGENT = `let i = 0;
const burst = () => {
  if (i < 200) { process.stdout.write('line ' + ++i + '\\n'); setTimeout(burst, 1); return; }
  let n = 0;
  setInterval(() => process.stdout.write('tick ' + ++n + '\\n'), 50);
};
burst();`;

let ui: UiBox;
let page: Page;
let problems: PageProblems;
let opened: UiPage | undefined;

t.before(async () => {
  opened = await openUiPage(manifest);
  ({ ui, page, problems } = opened);
});
t.teardown(() => opened?.close());

/** Ticks in the panel. */
const ticks = (): Promise<number> => page.$eval('[data-testid="agent-output"]', (el) => (el.textContent ?? '').split('tick ').length - 1);

t.test('lines arriving live touch only the last block of the log, and the view follows the end', async (t) => {
  await page.goto(`${ui.box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="view-sign-in"]', PAGE_WAIT);
  await signIn(page, ui.box.key);
  // Each element appears once the page has heard back (sign-in answered, the agent listed by the
  // live stream): wait for it rather than click at once.
  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  const spawned = await ui.box.api('/v1/agents', { body: { name: 'talker', command: process.execPath, args: ['-e', AGENT] } });
  t.equal(spawned.status, 201);
  await (await page.waitForSelector('[data-testid="agent-talker"] [data-testid="follow"]', PAGE_WAIT))!.click();

  // Two blocks or more: the first one is full and must not change again.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="agent-output"] .log-block').length >= 2, PAGE_WAIT);
  const first = await page.$eval('[data-testid="agent-output"] .log-block', (el) => {
    (el as HTMLElement).dataset['seen'] = 'yes';
    return { text: el.textContent, chunks: el.children.length };
  });
  t.ok(first.chunks >= 100 && first.chunks <= 200, `the first block holds ${first.chunks} chunks`);
  const seen = await ticks();
  await page.waitForFunction(
    (n: number) => (document.querySelector('[data-testid="agent-output"]')?.textContent ?? '').split('tick ').length - 1 >= n + 5,
    PAGE_WAIT,
    seen,
  );
  const after = await page.$eval('[data-testid="agent-output"] .log-block', (el) => ({ seen: (el as HTMLElement).dataset['seen'], text: el.textContent }));
  t.same(after, { seen: 'yes', text: first.text }, 'five more lines arrived and the first block is the same element with the same text');

  const text = await page.$eval('[data-testid="agent-output"]', (el) => el.textContent ?? '');
  const lines = text.split('\n').filter((l) => l.startsWith('line '));
  t.same(
    lines,
    Array.from({ length: 200 }, (_, i) => `line ${i + 1}`),
    'every line once, in order, each on its own line',
  );
  t.match(text, /line 200\ntick 1\n/, 'blocks do not split or join lines');
  // Scrolled once per frame: the bottom of the log is in view between frames.
  await page.waitForFunction(() => {
    const log = document.querySelector('[data-testid="agent-output"]')!;
    return log.scrollHeight > log.clientHeight && log.scrollTop + log.clientHeight >= log.scrollHeight - 2;
  }, PAGE_WAIT);
  t.pass('the panel shows the end of the log');

  t.equal((await ui.box.api(`/v1/agents/${(spawned.json['agent'] as { id: string }).id}`, { method: 'DELETE' })).status, 200);
  await page.waitForSelector('[data-testid="output-ended"]', PAGE_WAIT);
  t.same([problems.pageErrors, problems.failedRequests], [[], []], 'no page error, no failed request');
});
