// The snapshots pane in headless Chromium on a real box: take snapshots of a running agent (a label, the figures said), see what changed
// since the one before, browse an older snapshot's files and download one as it was (read from the store, no fork), delete one.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, signIn } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';

let ui: UiBox;
let page: Page;
let opened: UiPage | undefined;
t.before(async () => {
  opened = await openUiPage(manifest);
  ({ ui, page } = opened);
});
t.teardown(() => opened?.close());

/** The snapshots the pane lists, newest first, by id. */
const rows = (): Promise<string[]> =>
  page.$$eval('[data-testid="snapshots-list"] tbody tr td:first-child', (cells) => cells.map((c) => (c.textContent ?? '').trim()));

/** Fetch `href` from the page itself: the session cookie is what lets it through. */
const fetchInPage = (href: string): Promise<{ status: number; text: string }> =>
  page.evaluate(async (h) => {
    const res = await fetch(h, { credentials: 'same-origin' });
    return { status: res.status, text: await res.text() };
  }, href);

t.test('take, compare, browse, delete', async (t) => {
  await page.goto(`${ui.box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="view-sign-in"]', PAGE_WAIT);
  await signIn(page, ui.box.key);
  const spawned = await ui.box.api('/v1/agents', {
    body: { name: 'snapper', command: '/bin/sh', args: ['-c', 'mkdir -p src && echo v1 > src/app.ts && echo old > gone.txt && touch ready && exec sleep 600'] },
  });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const dir = path.join(ui.box.paths.workspaceDir, (spawned.json['agent'] as { cwd: string }).cwd);
  for (let i = 0; i < 200 && !(await stat(path.join(dir, 'ready')).catch(() => undefined)); i++) await new Promise((r) => setTimeout(r, 50));
  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector('[data-testid="agent-snapper"] [data-testid="follow"]', PAGE_WAIT))!.click();
  const { waitText } = pageText(page);

  await waitText('[data-testid="snapshots-empty"]', 'No snapshot of this agent yet');
  await page.type('[data-testid="snapshot-label"]', 'first try');
  await (await page.waitForSelector('[data-testid="snapshot-take"]', PAGE_WAIT))!.click();
  await waitText('[data-testid="snapshots-status"]', 'files,');
  t.match(
    await page.$eval('[data-testid="snapshots-status"]', (e) => e.textContent),
    /^Snapshot snp_\S+: 3 files, \d+ B, \d+ B added to the store\.$/,
    'the figures said',
  );
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="snapshots-list"] tbody tr').length === 1, PAGE_WAIT);
  const [first] = await rows();
  t.match(await page.$eval('[data-testid="snapshots-list"] tbody tr', (r) => r.textContent), /first try/, 'with its label');
  t.equal(await page.$('[data-testid="snapshot-changes"]'), null, 'the first has nothing before it to compare with');

  await writeFile(path.join(dir, 'src/app.ts'), 'v2, longer\n');
  await unlink(path.join(dir, 'gone.txt'));
  await writeFile(path.join(dir, 'src/new.ts'), 'new\n');
  await (await page.waitForSelector('[data-testid="snapshot-take"]', PAGE_WAIT))!.click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="snapshots-list"] tbody tr').length === 2, PAGE_WAIT);
  const listed = await rows();
  t.equal(listed[1], first, 'newest first');
  const second = listed[0]!;

  await (await page.waitForSelector(`[data-testid="snapshot-${second}"] [data-testid="snapshot-changes"]`, PAGE_WAIT))!.click();
  await waitText('[data-testid="snapshot-diff-counts"]', 'added');
  t.equal(await page.$eval('[data-testid="snapshot-diff-counts"]', (e) => e.textContent), '1 added (4 B), 1 modified, 1 deleted (4 B)');
  t.same(
    await page.$$eval('[data-testid="diff-row"]', (items) => items.map((i) => (i.textContent ?? '').trim())),
    ['D gone.txt', 'M src/app.ts content', 'A src/new.ts'],
    'a path a line, in path order, with what changed',
  );

  await (await page.waitForSelector(`[data-testid="snapshot-${first}"] [data-testid="snapshot-files"]`, PAGE_WAIT))!.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="snapshot-files-list"]')?.textContent?.includes('gone.txt'), PAGE_WAIT);
  t.same(
    await page.$$eval('[data-testid="snapshot-files-list"] [data-testid="file-row"] td:first-child', (cells) => cells.map((c) => (c.textContent ?? '').trim())),
    ['gone.txt', 'ready', 'src/'],
    'the older snapshot, as it was: the file since deleted is there',
  );
  const gone = await fetchInPage(await page.$eval('[data-testid="snapshot-browser"] [data-testid="download-file"]', (a) => (a as HTMLAnchorElement).href));
  t.same(gone, { status: 200, text: 'old\n' }, 'a file the workspace no longer has downloads from the store');
  await (await page.waitForSelector('[data-testid="snapshot-browser"] [data-testid="open-dir"]', PAGE_WAIT))!.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="snapshot-files-list"]')?.textContent?.includes('app.ts'), PAGE_WAIT);
  const app = await fetchInPage(await page.$eval('[data-testid="snapshot-browser"] [data-testid="download-file"]', (a) => (a as HTMLAnchorElement).href));
  t.same(app, { status: 200, text: 'v1\n' }, 'src/app.ts as the first snapshot holds it, not as it is now');
  const tar = await page.evaluate(
    async (h) => {
      const res = await fetch(h, { credentials: 'same-origin' });
      return { status: res.status, type: res.headers.get('content-type'), bytes: [...new Uint8Array(await res.arrayBuffer())] };
    },
    await page.$eval('[data-testid="snapshot-tar"]', (a) => (a as HTMLAnchorElement).href),
  );
  t.match(tar, { status: 200, type: 'application/x-tar' });
  t.equal(
    execFileSync('tar', ['-xOf', '-', 'app.ts'], { input: Buffer.from(tar.bytes), encoding: 'utf8' }),
    'v1\n',
    'the directory shown as a tar, from the snapshot',
  );
  await page.screenshot({ path: path.join(screenshotDir(), '3-agents-snapshots.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation');

  await (await page.waitForSelector(`[data-testid="snapshot-${second}"] [data-testid="snapshot-delete"]`, PAGE_WAIT))!.click();
  await (await page.waitForSelector('[data-testid="snapshot-delete-yes"]', PAGE_WAIT))!.click();
  await waitText('[data-testid="snapshots-status"]', 'deleted');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="snapshots-list"] tbody tr').length === 1, PAGE_WAIT);
  t.same(await rows(), [first], 'the deleted one is gone from the list');
  t.equal((await ui.box.api(`/v1/snapshots/${second}`)).status, 404, 'and from the box');
});

t.test('a long diff is shown a page at a time: "Show more" lists the rest', async (t) => {
  const spawned = await ui.box.api('/v1/agents', { body: { name: 'many', command: '/bin/sh', args: ['-c', 'touch ready && exec sleep 600'] } });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  const dir = path.join(ui.box.paths.workspaceDir, agent.cwd);
  for (let i = 0; i < 200 && !(await stat(path.join(dir, 'ready')).catch(() => undefined)); i++) await new Promise((r) => setTimeout(r, 50));
  const snap = async () => ((await ui.box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} })).json['snapshot'] as { id: string }).id;
  await snap();
  await mkdir(path.join(dir, 'gen'));
  for (let i = 0; i < 1499; i++) await writeFile(path.join(dir, 'gen', `f${String(i).padStart(4, '0')}.txt`), '');
  const latest = await snap();

  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector('[data-testid="agent-many"] [data-testid="follow"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector(`[data-testid="snapshot-${latest}"] [data-testid="snapshot-changes"]`, PAGE_WAIT))!.click();
  const { waitText } = pageText(page);
  await waitText('[data-testid="snapshot-diff-counts"]', 'added');
  t.equal(await page.$eval('[data-testid="snapshot-diff-counts"]', (e) => e.textContent), '1500 added (0 B), 0 modified, 0 deleted (0 B)');
  const listed = () => page.$$eval('[data-testid="diff-row"]', (items) => items.map((i) => (i.textContent ?? '').trim()));
  t.equal((await listed()).length, 1000, 'the first page');
  t.equal(await page.$eval('[data-testid="snapshot-diff-more"]', (b) => b.textContent), 'Show 500 more');
  await (await page.waitForSelector('[data-testid="snapshot-diff-more"]', PAGE_WAIT))!.click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diff-row"]').length === 1500, PAGE_WAIT);
  const all = await listed();
  t.same(
    [all[0], all[1], all[999], all[1000], all[1499]],
    ['A gen/', 'A gen/f0000.txt', 'A gen/f0998.txt', 'A gen/f0999.txt', 'A gen/f1498.txt'],
    'every change once, in path order',
  );
  t.equal(await page.$('[data-testid="snapshot-diff-more"]'), null, 'nothing more to show');
});
