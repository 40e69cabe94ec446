// The terminal view in headless Chromium on a real tty agent (bash): spawn with tty from the form, type, resize, detach, reattach, the end; screenshots and axe at each step.
import t, { type Test } from 'tap';
import type { Page } from 'puppeteer-core';
import { fillField, inspectPage, PAGE_WAIT, screenshotDir, type PageProblems, signIn } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';

let ui: UiBox;
let page: Page;
let problems: PageProblems;
let opened: UiPage | undefined;
const shots = screenshotDir();

t.before(async () => {
  opened = await openUiPage(manifest);
  ({ ui, page, problems } = opened);
  t.comment(`screenshots: ${shots}`);
});
t.teardown(() => opened?.close());

const inspect = (tt: Test, name: string): Promise<void> => inspectPage(tt, page, shots, name);
const fill = (testId: string, value: string): Promise<void> => fillField(page, testId, value);

/** The rows xterm.js has drawn on the page, one line each (its DOM renderer: one element per row); run in the page. */
function drawnRows(): string {
  return Array.from(document.querySelectorAll('[data-testid="terminal"] .xterm-rows > div'), (row) =>
    (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd(),
  ).join('\n');
}
const screenText = (): Promise<string> => page.evaluate(drawnRows);

/** Wait until the drawn screen matches `pattern` (read from here every 50 ms: the page's CSP forbids building the reader in the page from text). */
async function waitScreen(pattern: RegExp): Promise<string> {
  const deadline = Date.now() + PAGE_WAIT.timeout;
  for (;;) {
    const text = await screenText();
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}; it shows:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The size the view says it is attached with. */
async function attachedSize(): Promise<{ cols: number; rows: number }> {
  const handle = await page.waitForFunction(() => {
    const m = /Attached, (\d+) × (\d+)/.exec(document.querySelector('[data-testid="terminal-status"]')?.textContent ?? '');
    return m ? { cols: Number(m[1]), rows: Number(m[2]) } : false;
  }, PAGE_WAIT);
  return (await handle.jsonValue()) as { cols: number; rows: number };
}

/**
 * The terminal's WebSocket frames as the browser saw them (DevTools' network events), in order:
 * what a failure of the screen checks is read against (the page's resizes, the bytes it drew).
 */
async function recordSocketFrames(): Promise<string[]> {
  const frames: string[] = [];
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  const at = () => `${(performance.now() / 1000).toFixed(3)}s`;
  cdp.on('Network.webSocketCreated', (e) => frames.push(`${at()} open ${e.url}`));
  // Text frames as they are; binary ones (keystrokes, terminal data) come base64-encoded.
  const text = (r: { opcode: number; payloadData: string }) =>
    r.opcode === 1 ? r.payloadData : JSON.stringify(Buffer.from(r.payloadData, 'base64').toString('utf8'));
  cdp.on('Network.webSocketFrameSent', (e) => frames.push(`${at()} sent ${text(e.response)}`));
  cdp.on('Network.webSocketFrameReceived', (e) => frames.push(`${at()} received ${text(e.response)}`));
  cdp.on('Network.webSocketClosed', () => frames.push(`${at()} closed`));
  return frames;
}

t.test('a bash agent on a terminal: spawn with tty, type, resize, detach, reattach, the end', async (t) => {
  const frames = await recordSocketFrames();
  await page.goto(`${ui.box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="view-sign-in"]', PAGE_WAIT);
  await signIn(page, ui.box.key);
  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await page.waitForSelector('[data-testid="spawn-name"]', PAGE_WAIT);

  await fill('spawn-name', 'shell');
  await fill('spawn-command', '/bin/bash');
  await fill('spawn-args', '--noprofile\n--norc\n-i');
  await fill('spawn-env', 'PS1=prompt$ \nTERM=xterm-256color');
  await page.click('[data-testid="spawn-tty"]');
  await page.click('[data-testid="spawn"]');

  // Spawning selects the agent: its details say it has a terminal, and the terminal replaces the output panel.
  await page.waitForSelector('[data-testid="terminal-panel"], [data-testid="spawn-error"]', PAGE_WAIT);
  t.equal(await page.$eval('[data-testid="spawn-error"]', (el) => el.textContent).catch(() => null), null, 'the spawn is accepted');
  t.equal(await page.$('[data-testid="agent-output-panel"]'), null, 'no output panel for a tty agent');
  t.match(await page.$eval('[data-testid="detail-tty"]', (el) => el.textContent), /^yes/);
  const listed = (await ui.box.api('/v1/agents')).json['agents'] as Array<{ id: string; name: string; tty?: boolean }>;
  const agent = listed.find((a) => a.name === 'shell')!;
  t.equal(agent.tty, true, 'the form sent tty: true');

  const first = await attachedSize();
  await waitScreen(/^prompt\$$/m);
  // xterm's theme and cell sizes are stylesheets, 24-bit colours style attributes: both must apply under the page's CSP.
  await page.keyboard.type(`printf '\\e[38;2;255;0;0mtrue-red\\e[0m\\n'; echo "hi-$((6 * 7))"`);
  await page.keyboard.press('Enter');
  await waitScreen(/^hi-42$/m);
  const colours = await page.evaluate(() => {
    const rows = document.querySelector('[data-testid="terminal"] .xterm-rows')!;
    const red = Array.from(rows.querySelectorAll('span')).find((s) => s.textContent === 'true-red');
    return { text: getComputedStyle(rows).color, red: red ? getComputedStyle(red).color : 'no span' };
  });
  t.same(colours, { text: 'rgb(255, 255, 255)', red: 'rgb(255, 0, 0)' }, "xterm's theme (white on black) and a 24-bit colour are applied");
  await inspect(t, 'terminal-1-typed');

  // The agent has this viewer's size from the moment it attached.
  await page.keyboard.type('stty size');
  await page.keyboard.press('Enter');
  await waitScreen(new RegExp(`^${first.rows} ${first.cols}$`, 'm'));
  t.pass(`the agent sees the view's ${first.cols} × ${first.rows}`);

  // A smaller window: the terminal refits and sends the new size; the agent sees it.
  await page.setViewport({ width: 900, height: 620 });
  const resized = await page.waitForFunction(
    (cols: number, rows: number) => {
      const m = /Attached, (\d+) × (\d+)/.exec(document.querySelector('[data-testid="terminal-status"]')?.textContent ?? '');
      return m && (Number(m[1]) !== cols || Number(m[2]) !== rows) ? { cols: Number(m[1]), rows: Number(m[2]) } : false;
    },
    PAGE_WAIT,
    first.cols,
    first.rows,
  );
  const second = (await resized.jsonValue()) as { cols: number; rows: number };
  t.ok(second.cols < first.cols && second.rows < first.rows, `smaller: ${first.cols} × ${first.rows} → ${second.cols} × ${second.rows}`);
  await page.keyboard.type('clear; stty size');
  await page.keyboard.press('Enter');
  await waitScreen(new RegExp(`^${second.rows} ${second.cols}$`, 'm'));
  await inspect(t, 'terminal-2-resized');

  // Detach: the view lets go (the agent runs on); output written meanwhile is on the screen at the next attach.
  await page.click('[data-testid="terminal-detach"]');
  await page.waitForSelector('[data-testid="terminal-attach"]', PAGE_WAIT);
  t.match(await page.$eval('[data-testid="terminal-status"]', (el) => el.textContent), /Detached/);
  t.equal(await screenText(), '', 'nothing drawn while detached');
  await inspect(t, 'terminal-3-detached');
  const typed = await ui.box.api(`/v1/agents/${agent.id}/input`, { body: { data: 'echo "while-$((2 + 3))-detached"\r' } });
  t.equal(typed.status, 204);
  t.equal(((await ui.box.api(`/v1/agents/${agent.id}`)).json['agent'] as { state: string }).state, 'running', 'the agent runs on');

  await page.click('[data-testid="terminal-attach"]');
  await attachedSize();
  const again = await waitScreen(/^while-5-detached$/m);
  t.match(again, new RegExp(`^${second.rows} ${second.cols}$`, 'm'), 'the earlier screen is back: the box sends its current screen first');
  await inspect(t, 'terminal-4-reattached');

  // The end: the exit record says how it ended; the last screen stays.
  await page.keyboard.type('exit 3');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /has ended: failed, exit 3/.test(document.querySelector('[data-testid="terminal-status"]')?.textContent ?? ''), PAGE_WAIT);
  const last = await screenText();
  const earlier = /while-5-detached/;
  t.match(last, earlier, 'the last screen stays on the page', earlier.test(last) ? {} : { frames });
  await inspect(t, 'terminal-5-ended');
  // Attaching to an ended agent: its last screen, then the record at once.
  await page.click('[data-testid="terminal-attach"]');
  await waitScreen(/^while-5-detached$/m);
  await page.waitForFunction(() => /has ended: failed, exit 3/.test(document.querySelector('[data-testid="terminal-status"]')?.textContent ?? ''), PAGE_WAIT);

  // The one refusal is the page's first GET /ui/session, before signing in (the browser notes it as a console error).
  t.same(
    {
      pageErrors: problems.pageErrors,
      consoleErrors: problems.consoleErrors.filter((m) => !m.includes('401 (Unauthorized) @ ')),
      failedRequests: problems.failedRequests,
    },
    { pageErrors: [], consoleErrors: [], failedRequests: [] },
    'no page error, no other console error (a CSP refusal would be one), no failed request',
  );
  t.same(problems.httpErrors, ['GET /ui/session 401']);
});
