// The snapshots pane in headless Chromium on a real box: take snapshots of a running agent (a label, the figures said), see what changed
// since the one before, browse an older snapshot's files and download one as it was (read from the store, no fork), delete one;
// fork one into several agents, keep copies built ahead for forks, and restore an ended agent's directory.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { fillField, PAGE_WAIT, pageText, screenshotDir, seriousViolations, signIn } from './support/browser.js';
import type { UiBox } from './support/ui-box.js';
import { openUiPage, type UiPage } from './support/ui-page.js';

const manifest = [
  '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"',
  '[agents.profiles.shell]\ncommand = "/bin/sh"\nargs = ["-c", "echo from-profile > p.txt; exec sleep 600"]\n',
].join('\n');

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
  t.equal(await page.$('[data-testid="snapshot-restore"]'), null, 'no restore in place while the agent runs');

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

t.test('fork into several agents, keep copies ready, restore the ended agent in place', async (t) => {
  const spawned = await ui.box.api('/v1/agents', {
    body: { name: 'source', command: '/bin/sh', args: ['-c', 'mkdir lib && echo base > base.txt && echo x > lib/x'] },
  });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const source = spawned.json['agent'] as { id: string; cwd: string };
  // Its end is an event: its output followed until it ends.
  await (await fetch(`${ui.box.server.apiUrl}/v1/agents/${source.id}/output?follow=true`, { headers: { authorization: `Bearer ${ui.box.key}` } })).text();
  const taken = await ui.box.api(`/v1/agents/${source.id}/snapshots`, { body: { label: 'good' } });
  t.equal(taken.status, 201, JSON.stringify(taken.json));
  const sid = (taken.json['snapshot'] as { id: string }).id;

  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector('[data-testid="agent-source"] [data-testid="follow"]', PAGE_WAIT))!.click();
  const { waitText, text } = pageText(page);
  await (await page.waitForSelector(`[data-testid="snapshot-${sid}"] [data-testid="snapshot-fork-open"]`, PAGE_WAIT))!.click();
  await page.waitForSelector('[data-testid="snapshot-fork"]', PAGE_WAIT);
  t.same(
    await page.$eval('[data-testid="snapshot-fork"]', (f) =>
      ['fork-name', 'fork-command', 'fork-args', 'fork-count'].map((id) => (f.querySelector(`[data-testid="${id}"]`) as HTMLInputElement).value),
    ),
    ['source-fork', '/bin/sh', '-c\nmkdir lib && echo base > base.txt && echo x > lib/x', '1'],
    "the form starts from the agent's own command",
  );
  await waitText('[data-testid="warm-status"]', 'No copy is built ahead');

  // Refused before anything is sent, then by the box: each said, nothing started.
  await fillField(page, 'fork-count', '11');
  await page.click('[data-testid="fork-start"]');
  await waitText('[data-testid="fork-error"]', 'How many: a whole number from 1 to 10.');
  await fillField(page, 'fork-count', '1');
  await fillField(page, 'fork-name', 'not a name!');
  await page.click('[data-testid="fork-start"]');
  await waitText('[data-testid="fork-error"]', '1 of 1 not started:');
  const names = async (): Promise<string[]> => ((await ui.box.api('/v1/agents')).json['agents'] as Array<{ name: string }>).map((a) => a.name).sort();
  t.notOk(
    (await names()).some((n) => n.includes('name!')),
    'the refused fork did not start',
  );

  await fillField(page, 'fork-name', 'try');
  await fillField(page, 'fork-args', '-c\ncat base.txt lib/x && exec sleep 600');
  await fillField(page, 'fork-count', '2');
  await page.click('[data-testid="fork-start"]');
  await waitText('[data-testid="fork-status"]', 'Started');
  t.match(
    await text('[data-testid="fork-status"]'),
    /^Started try-\d \(agt_\S+, from a copy\), try-\d \(agt_\S+, from a copy\)\.$/,
    'both forks started, each said',
  );
  const forks = ((await ui.box.api('/v1/agents')).json['agents'] as Array<{ name: string; cwd: string }>).filter((a) => a.name.startsWith('try-'));
  t.same(forks.map((f) => f.name).sort(), ['try-1', 'try-2']);
  for (const f of forks) {
    t.equal(await readFile(path.join(ui.box.paths.workspaceDir, f.cwd, 'base.txt'), 'utf8'), 'base\n', `${f.name} works on its own copy`);
    t.not(f.cwd, source.cwd);
  }

  // Copies built ahead: the count is read again until they are ready, and the next fork takes one.
  await fillField(page, 'warm-count', '33');
  await page.click('[data-testid="warm-keep"]');
  await waitText('[data-testid="warm-error"]', 'Copies: a whole number from 0 to 32.');
  await fillField(page, 'warm-count', '2');
  await page.click('[data-testid="warm-keep"]');
  await waitText('[data-testid="warm-status"]', '2 of 2 copies ready for forks.');
  await fillField(page, 'fork-name', 'quick');
  await fillField(page, 'fork-count', '1');
  await page.click('[data-testid="fork-start"]');
  await waitText('[data-testid="fork-status"]', 'quick');
  t.match(await text('[data-testid="fork-status"]'), /^Started quick \(agt_\S+, from a copy built ahead\)\.$/, 'the fork took a copy built ahead');
  await page.screenshot({ path: path.join(screenshotDir(), '3-agents-snapshot-fork.png'), fullPage: true });
  t.same(await seriousViolations(page), [], 'axe finds no serious or critical violation');
  await fillField(page, 'warm-count', '0');
  await page.click('[data-testid="warm-keep"]');
  await waitText('[data-testid="warm-status"]', 'No copy is built ahead');
  t.equal(((await ui.box.api(`/v1/snapshots/${sid}`)).json['snapshot'] as { warm?: unknown }).warm, undefined, 'no copy wanted any more');

  // The ended agent went down a wrong path: its directory put back as the snapshot holds it.
  const dir = path.join(ui.box.paths.workspaceDir, source.cwd);
  await unlink(path.join(dir, 'base.txt'));
  await writeFile(path.join(dir, 'junk.txt'), 'wrong\n');
  await (await page.waitForSelector(`[data-testid="snapshot-${sid}"] [data-testid="snapshot-restore"]`, PAGE_WAIT))!.click();
  await (await page.waitForSelector('[data-testid="snapshot-restore-yes"]', PAGE_WAIT))!.click();
  await waitText('[data-testid="snapshots-status"]', 'restored');
  t.match(await text('[data-testid="snapshots-status"]'), new RegExp(`^source's directory restored to ${sid}: 2 files, 7 B\\.$`), 'the restore said');
  t.same((await readdir(dir)).sort(), ['base.txt', 'lib'], 'the wrong path is gone, the snapshot is back');
  t.equal(await readFile(path.join(dir, 'base.txt'), 'utf8'), 'base\n');
});

t.test("an agent's checkpoints in its details: the plan and how many are kept", async (t) => {
  const spawned = await ui.box.api('/v1/agents', {
    body: { name: 'checked', command: '/bin/sh', args: ['-c', 'echo x > f; exec sleep 600'], checkpoints: { everySec: 1, keep: 2 } },
  });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector('[data-testid="agent-checked"] [data-testid="follow"]', PAGE_WAIT))!.click();
  const { waitText, text } = pageText(page);
  // The live record carries them: two made within a few seconds of its start.
  await waitText('[data-testid="detail-checkpoints"]', '2 so far');
  t.equal(await text('[data-testid="detail-checkpoints"]'), 'every 1 s, the 2 newest kept: 2 so far (label "checkpoint" below)');
  await (await page.waitForSelector('[data-testid="agent-source"] [data-testid="follow"]', PAGE_WAIT))!.click();
  await waitText('[data-testid="agent-detail"] h2', 'source');
  t.equal(await text('[data-testid="detail-checkpoints"]'), 'none', 'an agent without checkpoints');
  await ui.box.api(`/v1/agents/${(spawned.json['agent'] as { id: string }).id}?graceMs=0`, { method: 'DELETE' });
});

t.test('a fork of an agent started from a profile is started from that profile', async (t) => {
  const spawned = await ui.box.api('/v1/agents', { body: { profile: 'shell', name: 'profiled' } });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  const dir = path.join(ui.box.paths.workspaceDir, agent.cwd);
  for (let i = 0; i < 200 && !(await stat(path.join(dir, 'p.txt')).catch(() => undefined)); i++) await new Promise((r) => setTimeout(r, 50));
  await writeFile(path.join(dir, 'marker.txt'), 'in the snapshot\n');
  const taken = await ui.box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  const sid = (taken.json['snapshot'] as { id: string }).id;
  await (await page.waitForSelector('[data-testid="tab-agents"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector('[data-testid="agent-profiled"] [data-testid="follow"]', PAGE_WAIT))!.click();
  await (await page.waitForSelector(`[data-testid="snapshot-${sid}"] [data-testid="snapshot-fork-open"]`, PAGE_WAIT))!.click();
  const { waitText, text } = pageText(page);
  await waitText('[data-testid="fork-profile"]', 'From profile shell');
  t.equal(await page.$('[data-testid="fork-command"]'), null, 'no command to change: the profile has it');
  await page.click('[data-testid="fork-start"]');
  await waitText('[data-testid="fork-status"]', 'Started');
  t.match(await text('[data-testid="fork-status"]'), /^Started profiled-fork \(agt_\S+, from a copy\)\.$/);
  const fork = ((await ui.box.api('/v1/agents')).json['agents'] as Array<{ name: string; profile?: string; command: string; cwd: string }>).find(
    (a) => a.name === 'profiled-fork',
  );
  t.match(fork, { profile: 'shell', command: '/bin/sh' }, 'started from the profile, as the agent was');
  t.equal(await readFile(path.join(ui.box.paths.workspaceDir, fork!.cwd, 'marker.txt'), 'utf8'), 'in the snapshot\n', 'on a copy of the snapshot');
});
