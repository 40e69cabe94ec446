// The files pane in headless Chromium on a real box: browse an agent's workspace, download a file and a directory's tar through
// the session, upload files (new, then replacing) and a folder, an upload the agent's disk budget refuses shown as an error, nothing kept, and names that are not UTF-8 opened by their bytes;
// a folder of many files sent a few at a time past a low rate limit, each 429 sent again after the wait it asks for.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ElementHandle, Page } from 'puppeteer-core';
import { PAGE_WAIT, pageText, screenshotDir, seriousViolations, signIn } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';

let ui: UiBox;
let page: Page;
let opened: UiPage | undefined;
const local = mkdtempSync(path.join(tmpdir(), 'agentbox-ui-files-'));

t.before(async () => {
  opened = await openUiPage(manifest);
  ({ ui, page } = opened);
});
t.teardown(async () => {
  await opened?.close();
  rmSync(local, { recursive: true, force: true });
});

/** Spawn an agent that writes a few files, and follow it in the agents view; its workspace directory. */
async function follow(name: string, limits?: Record<string, string>): Promise<string> {
  const spawned = await ui.box.api('/v1/agents', {
    body: {
      name,
      command: '/bin/sh',
      args: ['-c', 'mkdir -p src/lib && echo top > top.txt && echo deep > src/lib/deep.txt && ln -s top.txt link && touch ready && exec sleep 600'],
      ...(limits ? { limits } : {}),
    },
  });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const dir = path.join(ui.box.paths.workspaceDir, (spawned.json['agent'] as { cwd: string }).cwd);
  for (let i = 0; i < 200 && !(await stat(path.join(dir, 'ready')).catch(() => undefined)); i++) await new Promise((r) => setTimeout(r, 50));
  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector(`[data-testid="agent-${name}"] [data-testid="follow"]`, PAGE_WAIT))!.click();
  return dir;
}

/** The pane's file input. */
const picker = async (): Promise<ElementHandle<HTMLInputElement>> =>
  (await page.waitForSelector('[data-testid="files-upload"]', PAGE_WAIT)) as ElementHandle<HTMLInputElement>;

/** The names the pane lists now, as shown. */
const names = (): Promise<string[]> =>
  page.$$eval('[data-testid="files-list"] [data-testid="file-row"] td:first-child', (cells) => cells.map((c) => (c.textContent ?? '').trim()));

/** Fetch `href` from the page itself: the session cookie is what lets it through. */
const fetchInPage = (href: string): Promise<{ status: number; type: string; bytes: number[] }> =>
  page.evaluate(async (h) => {
    const res = await fetch(h, { credentials: 'same-origin' });
    return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: [...new Uint8Array(await res.arrayBuffer())] };
  }, href);

t.test('browse, download, upload', async (t) => {
  await page.goto(`${ui.box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid="view-sign-in"]', PAGE_WAIT);
  await signIn(page, ui.box.key);
  const dir = await follow('filer');
  const { waitText } = pageText(page);

  await page.waitForSelector('[data-testid="files-list"]', PAGE_WAIT);
  t.same(await names(), ['link → top.txt', 'ready', 'src/', 'top.txt'], 'the workspace listed in sort order: a link with its target, a directory to open');

  const topHref = await page.$$eval(
    '[data-testid="download-file"]',
    (links) => links.map((a) => a as HTMLAnchorElement).find((a) => a.textContent === 'top.txt')?.href ?? '',
  );
  const top = await fetchInPage(topHref);
  t.same({ status: top.status, text: Buffer.from(top.bytes).toString() }, { status: 200, text: 'top\n' }, "a file's link downloads its bytes");

  await (await page.waitForSelector('[data-testid="open-dir"]', PAGE_WAIT))!.click();
  await waitText('[data-testid="files-path"]', 'src');
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('lib/'), PAGE_WAIT);
  t.same(await names(), ['lib/'], 'inside src/');
  await (await page.waitForSelector('[data-testid="open-dir"]', PAGE_WAIT))!.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('deep.txt'), PAGE_WAIT);
  const deep = await fetchInPage(await page.$eval('[data-testid="download-file"]', (a) => (a as HTMLAnchorElement).href));
  t.equal(Buffer.from(deep.bytes).toString(), 'deep\n', 'a file two levels down downloads');

  // The directory shown as a tar, through the session cookie.
  const tar = await fetchInPage(await page.$eval('[data-testid="files-tar"]', (a) => (a as HTMLAnchorElement).href));
  t.equal(tar.status, 200);
  t.match(tar.type, /application\/x-tar/);
  t.match(execFileSync('tar', ['-tf', '-'], { input: Buffer.from(tar.bytes), encoding: 'utf8' }), /deep\.txt/, 'the tar holds the directory');

  // Upload two files into src/lib: both new, then one again: replaced.
  writeFileSync(path.join(local, 'notes.md'), '# notes\n');
  writeFileSync(path.join(local, 'data.bin'), Buffer.alloc(300_000, 7));
  const input = await picker();
  await input.uploadFile(path.join(local, 'notes.md'), path.join(local, 'data.bin'));
  await waitText('[data-testid="files-status"]', 'Uploaded');
  t.match(await page.$eval('[data-testid="files-status"]', (e) => e.textContent), /notes\.md \(new\).*data\.bin \(new\)/, 'each named as new');
  t.equal(await readFile(path.join(dir, 'src/lib/notes.md'), 'utf8'), '# notes\n', 'written into the directory shown');
  t.ok((await readFile(path.join(dir, 'src/lib/data.bin'))).equals(Buffer.alloc(300_000, 7)), 'binary bytes as they were');
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('notes.md'), PAGE_WAIT);
  t.same(await names(), ['data.bin', 'deep.txt', 'notes.md'], 'the listing asked again after the upload');

  writeFileSync(path.join(local, 'notes.md'), '# notes, again\n');
  const again = await picker();
  await again.uploadFile(path.join(local, 'notes.md'));
  await waitText('[data-testid="files-status"]', 'notes.md (replaced)');
  t.equal(await readFile(path.join(dir, 'src/lib/notes.md'), 'utf8'), '# notes, again\n', 'replaced');

  // A folder: its files go below the directory shown under the folder's own name, their directories made on the way.
  mkdirSync(path.join(local, 'project/src/deep'), { recursive: true });
  writeFileSync(path.join(local, 'project/README'), 'read me\n');
  writeFileSync(path.join(local, 'project/src/deep/code.ts'), 'export {};\n');
  const folder = (await page.waitForSelector('[data-testid="files-upload-folder"]', PAGE_WAIT)) as ElementHandle<HTMLInputElement>;
  await folder.uploadFile(path.join(local, 'project'));
  // Wait for this upload's own words: the last upload's "Uploaded notes.md (replaced)" is still shown
  // until the page has read the folder and says "Uploading 2 files…".
  await waitText('[data-testid="files-status"]', 'project/README (new)');
  t.match(
    await page.$eval('[data-testid="files-status"]', (e) => e.textContent),
    /project\/README \(new\).*project\/src\/deep\/code\.ts \(new\)|project\/src\/deep\/code\.ts \(new\).*project\/README \(new\)/,
    'each file named by its path in the folder',
  );
  t.equal(await readFile(path.join(dir, 'src/lib/project/README'), 'utf8'), 'read me\n', 'the folder lands in the directory shown');
  t.equal(await readFile(path.join(dir, 'src/lib/project/src/deep/code.ts'), 'utf8'), 'export {};\n', 'its subdirectories made');
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('project/'), PAGE_WAIT);
  t.ok((await names()).includes('project/'), 'listed after the upload');

  await (await page.waitForSelector('[data-testid="files-path"] button', PAGE_WAIT))!.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('top.txt'), PAGE_WAIT);
  t.ok((await names()).includes('top.txt'), 'the first crumb goes back to the workspace');
  await page.screenshot({ path: path.join(screenshotDir(), '3-agents-files.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation');
});

t.test('an upload over the agent disk budget: the error shown, nothing kept', async (t) => {
  const dir = await follow('small', { disk: '1m' });
  const { waitText } = pageText(page);
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('top.txt'), PAGE_WAIT);
  writeFileSync(path.join(local, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 1));
  // Made behind the page's back: it shows once the listing asked again after the upload is in.
  writeFileSync(path.join(dir, 'marker.txt'), 'made meanwhile\n');
  await (await picker()).uploadFile(path.join(local, 'big.bin'));
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('marker.txt'), PAGE_WAIT);
  await waitText('[data-testid="files-error"]', 'ABX_ERR');
  t.match(
    await page.$eval('[data-testid="files-error"]', (e) => e.textContent),
    /disk/,
    'the reason names the disk budget, and stays once the listing is asked again',
  );
  t.equal(await stat(path.join(dir, 'big.bin')).catch(() => undefined), undefined, 'nothing was written');
  t.notOk((await names()).includes('big.bin'), 'and nothing listed');
});

t.test('names that are not UTF-8: shown with their odd bytes as �, opened and downloaded by their bytes', async (t) => {
  const dir = await follow('bytes');
  writeFileSync(Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.of(0xe9), Buffer.from('.txt')]), 'latin-1\n');
  mkdirSync(Buffer.concat([Buffer.from(`${dir}/d`), Buffer.of(0xff)]));
  writeFileSync(Buffer.concat([Buffer.from(`${dir}/d`), Buffer.of(0xff), Buffer.from('/inner.txt')]), 'inner\n');
  await (await page.waitForSelector('[data-testid="files-refresh"]', PAGE_WAIT))!.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('caf\uFFFD.txt'), PAGE_WAIT);
  t.same(
    (await names()).filter((n) => n.includes('\uFFFD')),
    ['caf\uFFFD.txt', 'd\uFFFD/'],
    'listed, each odd byte shown as �',
  );
  const href = await page.$$eval(
    '[data-testid="download-file"]',
    (links) => links.map((a) => a as HTMLAnchorElement).find((a) => a.textContent === 'caf\uFFFD.txt')?.href ?? '',
  );
  t.match(href, /\/files\/caf%E9\.txt$/, 'its link carries the byte');
  t.equal(Buffer.from((await fetchInPage(href)).bytes).toString(), 'latin-1\n', 'and downloads the file');
  const opener = await page.$$('[data-testid="open-dir"]');
  const texts = await Promise.all(opener.map((b) => b.evaluate((e) => e.textContent)));
  await opener[texts.indexOf('d\uFFFD/')]!.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="files-list"]')?.textContent?.includes('inner.txt'), PAGE_WAIT);
  t.same(await names(), ['inner.txt'], 'the directory so named opens');
  const inner = await fetchInPage(await page.$eval('[data-testid="download-file"]', (a) => (a as HTMLAnchorElement).href));
  t.equal(Buffer.from(inner.bytes).toString(), 'inner\n', 'a file below it downloads');
});

t.test('a folder of many files past the rate limit: sent a few at a time, each 429 sent again after the wait it asks for', async (t) => {
  // Eight mutations every 1.5 s, whoever sends them: the sign-in and the spawn among them.
  const slow = await openUiPage(manifest, { limits: { max: 8, timeWindowMs: 1500 } });
  t.teardown(() => slow.close());
  const { ui: box, page: p } = slow;
  const { waitText, text } = pageText(p);
  const spawned = await box.box.api('/v1/agents', { body: { name: 'many', command: '/bin/sh', args: ['-c', 'exec sleep 600'] } });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const dir = path.join(box.box.paths.workspaceDir, (spawned.json['agent'] as { cwd: string }).cwd);
  const files = Array.from({ length: 24 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
  mkdirSync(path.join(local, 'many/sub'), { recursive: true });
  for (const f of files) writeFileSync(path.join(local, 'many/sub', f), `${f}\n`);

  await p.goto(`${box.box.server.apiUrl}/ui/`, { waitUntil: 'load' });
  await signIn(p, box.box.key);
  await (await p.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await (await p.waitForSelector('[data-testid="agent-many"] [data-testid="follow"]', PAGE_WAIT))!.click();
  const folder = (await p.waitForSelector('[data-testid="files-upload-folder"]', PAGE_WAIT)) as ElementHandle<HTMLInputElement>;
  await folder.uploadFile(path.join(local, 'many'));
  await waitText('[data-testid="files-status"]', 'Uploaded');
  const said = await text('[data-testid="files-status"]');
  t.same(
    said
      .replace(/^Uploaded /, '')
      .replace(/\.$/, '')
      .split(', ')
      .sort(),
    files.map((f) => `many/sub/${f} (new)`),
    'every file said once, as new',
  );
  for (const f of files) t.equal(await readFile(path.join(dir, 'many/sub', f), 'utf8'), `${f}\n`, `${f} uploaded whole`);
  const metrics = await (await fetch(box.box.server.metricsUrl)).text();
  t.match(metrics, /^agentbox_http_requests_total\{method="PUT",route="[^"]*files[^"]*",status="429"\} [1-9]/m, 'the box refused some as too many at once');
});
