// Headless Debian Chromium driven by puppeteer-core for the dashboard tests: launch, page problem log, axe check, screenshots.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The system browser (apt `chromium`; puppeteer's own download cannot run where the network is closed). */
export const CHROMIUM = process.env['AGENTBOX_CHROMIUM'] ?? '/usr/bin/chromium';

/** Where screenshots go: AGENTBOX_UI_SCREENSHOTS, else .tap/screenshots/ui in the checkout (an artefact, not committed). */
export function screenshotDir(): string {
  const dir = path.resolve(process.env['AGENTBOX_UI_SCREENSHOTS'] ?? path.join(repo, '.tap/screenshots/ui'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Launch one headless browser for a test file. */
export async function launchBrowser(): Promise<Browser> {
  const args = ['--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-extensions', '--window-size=1280,900'];
  // Chromium's own sandbox refuses to start as root (it needs an unprivileged user for its
  // namespaces); CI and this machine run the suite as root. The page only loads the box's own
  // dashboard from 127.0.0.1, so running without that sandbox there is acceptable.
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args, defaultViewport: { width: 1280, height: 900 } });
}

/** What went wrong on a page: console errors, uncaught exceptions, failed requests, HTTP errors. */
export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  failedRequests: string[];
  httpErrors: string[];
}

/**
 * Record every problem the page shows. An EventSource the page itself closes (a view going away,
 * an output stream after its `end` record, sign-out) ends as net::ERR_ABORTED: that is how a
 * client ends a live stream, so only those are left out of failedRequests.
 */
export function watchPage(page: Page): PageProblems {
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], failedRequests: [], httpErrors: [] };
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'assert') problems.consoleErrors.push(`${msg.text()} @ ${msg.location().url ?? '?'}`);
  });
  page.on('pageerror', (err) => problems.pageErrors.push(err instanceof Error ? (err.stack ?? err.message) : String(err)));
  page.on('requestfailed', (req) => {
    const reason = req.failure()?.errorText ?? 'unknown';
    if (req.resourceType() === 'eventsource' && reason === 'net::ERR_ABORTED') return;
    problems.failedRequests.push(`${req.method()} ${req.url()}: ${reason}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.httpErrors.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`);
  });
  return problems;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One axe rule broken on the page. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Run axe-core (WCAG 2.x A/AA and best practices) on the page as it is and return the serious and
 * critical violations. The engine is evaluated through the DevTools protocol, which the page's CSP
 * does not govern, so the page runs under its real policy.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: unknown,
          ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Waits for the page: generous, since the whole suite shares two cores; each wait ends as soon as its condition holds. */
export const PAGE_WAIT = { timeout: 20_000 };

/**
 * Sign in with the API key. The form is waited for first: the page renders it when its script has
 * run, which on a loaded machine can be after the load event that `goto` waits for.
 */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.waitForSelector('[data-testid="api-key"]', PAGE_WAIT);
  await page.type('[data-testid="api-key"]', key);
  await page.click('[data-testid="sign-in"]');
}

/** Text helpers bound to a page: the text of an element, and waiting until an element contains a string. */
export function pageText(page: Page): { text: (selector: string) => Promise<string>; waitText: (selector: string, needle: string) => Promise<unknown> } {
  return {
    text: (selector) => page.$eval(selector, (el) => el.textContent ?? ''),
    waitText: (selector, needle) => page.waitForFunction((s, n) => (document.querySelector(s)?.textContent ?? '').includes(n), PAGE_WAIT, selector, needle),
  };
}

/** Replace the value of a form field as typing would (the page's state follows `input` events). */
export async function fillField(page: Page, testId: string, value: string): Promise<void> {
  await page.$eval(
    `[data-testid="${testId}"]`,
    (el, v) => {
      const input = el as HTMLInputElement | HTMLTextAreaElement;
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
    value,
  );
}

/** Screenshot `name` of the page as it is into `shots`, and check with axe that it has no serious or critical violation. */
export async function inspectPage(tt: Test, page: Page, shots: string, name: string): Promise<void> {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  tt.same(await seriousViolations(page), [], `axe finds no serious or critical violation on ${name}`);
}
