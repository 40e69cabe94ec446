// First render after sign-in, timed inside a fresh headless Chromium page: sign-in submitted → the overview shows READY with its slots.
import type { Browser, Page } from 'puppeteer-core';

/** One sign-in, timed with the page's own clock (performance.now()). */
export interface FirstRender {
  /** Submit of the sign-in form → READY and every slot row in the DOM. */
  render: number;
  /** Submit → the POST /ui/session response fully received (resource timing). */
  session: number;
  /** The same page's plain fetch('/v1/meta') round trip, with its session (the floor of any view). */
  meta: number;
}

const WAIT = { timeout: 20_000 };

// In-page probe (a string: the bench compiles without DOM types). A capture listener stamps the
// submit; a MutationObserver stamps the first moment READY and all `slots` rows are in the DOM.
const armProbe = (slots: number): string => `window.__firstRender = new Promise((resolve) => {
  let submitted;
  document.addEventListener('submit', () => { submitted = performance.now(); }, { capture: true });
  const done = () => {
    const ready = document.querySelector('[data-testid="readiness"]');
    return ready && ready.textContent.trim() === 'READY' && document.querySelectorAll('[data-testid="slots"] tbody tr').length === ${slots};
  };
  new MutationObserver((_records, observer) => {
    if (submitted === undefined || !done()) return;
    const at = performance.now();
    observer.disconnect();
    const post = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/ui/session')).pop();
    resolve({ render: at - submitted, session: post ? post.responseEnd - submitted : NaN });
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
});
0`;

const WAIT_PROBE = `Promise.race([window.__firstRender, new Promise((_, reject) => setTimeout(() => reject(new Error('no READY with its slots within 20 s')), 20000))])`;

const META_ROUND_TRIP = `(async () => {
  const t0 = performance.now();
  const res = await fetch('/v1/meta', { credentials: 'same-origin' });
  await res.json();
  if (res.status !== 200) throw new Error('GET /v1/meta answered ' + res.status);
  return performance.now() - t0;
})()`;

/** Sign in on a fresh page of a fresh browser context (no cookie, no cache) and time the overview. */
async function once(browser: Browser, apiUrl: string, key: string, slots: number): Promise<FirstRender> {
  const context = await browser.createBrowserContext();
  try {
    const page: Page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.goto(`${apiUrl}/ui/`, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid="view-sign-in"]', WAIT);
    await page.type('[data-testid="api-key"]', key);
    await page.evaluate(armProbe(slots));
    await page.click('[data-testid="sign-in"]');
    const timed = (await page.evaluate(WAIT_PROBE)) as { render: number; session: number };
    const meta = (await page.evaluate(META_ROUND_TRIP)) as number;
    if (errors.length) throw new Error(`dashboard bench: the page failed: ${errors.join('; ')}`);
    return { ...timed, meta };
  } finally {
    await context.close();
  }
}

/** `runs` timed sign-ins after `warmup` untimed ones (the first loads the bundle into the OS cache). */
export async function firstRenders(browser: Browser, apiUrl: string, key: string, runs: number, warmup = 2): Promise<FirstRender[]> {
  // Every slot of the manifest has a row, `off` ones included.
  const slots = 5;
  for (let i = 0; i < warmup; i++) await once(browser, apiUrl, key, slots);
  const out: FirstRender[] = [];
  for (let i = 0; i < runs; i++) out.push(await once(browser, apiUrl, key, slots));
  return out;
}
