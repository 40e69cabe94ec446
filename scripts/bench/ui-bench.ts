// The dashboard: shipped JS + CSS (gzip), sign-in → overview on screen, and agent output line → page (p95), in headless Chromium against a real API.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import puppeteer, { type Page } from 'puppeteer-core';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { startServer } from '../../management-api/src/start-server.js';
import { repoPath } from '../cli/repo-path.js';
import { median, ms, quantile, table } from './stats.js';

const SIGN_INS = Number(process.env['AGENTBOX_BENCH_UI_SIGN_INS'] || 20);
const LINES = Number(process.env['AGENTBOX_BENCH_UI_LINES'] || 200);
const CHROMIUM = process.env['AGENTBOX_CHROMIUM'] ?? '/usr/bin/chromium';
const MANIFEST = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';
const WAIT = { timeout: 30_000 };

/** Gzip bytes of each shipped asset of the built dashboard (dist/ui). */
function bundleSizes(uiRoot: string): string[][] {
  const dir = path.join(uiRoot, 'assets');
  const sizes = readdirSync(dir).map((f) => [f, gzipSync(readFileSync(path.join(dir, f)), { level: 9 }).length] as const);
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  return [...sizes.map(([f, n]) => [f, kib(n)]), ['total (budget 150 KiB)', kib(sizes.reduce((sum, [, n]) => sum + n, 0))]];
}

/** Milliseconds from the sign-in click to READY on screen, `SIGN_INS` times (signing out between). */
async function signInTimes(page: Page, url: string, key: string): Promise<number[]> {
  const samples: number[] = [];
  await page.goto(`${url}/ui/`);
  for (let i = 0; i < SIGN_INS; i++) {
    await page.waitForSelector('[data-testid="api-key"]', WAIT);
    await page.type('[data-testid="api-key"]', key);
    // Timed inside the page: from the click to the frame where the overview shows READY. (Page code is
    // given as text: this file compiles without the DOM library.)
    const elapsed = (await page.evaluate(`new Promise((resolve) => {
      const t0 = performance.now();
      const check = () => (document.querySelector('[data-testid="readiness"]')?.textContent === 'READY' ? resolve(performance.now() - t0) : requestAnimationFrame(check));
      document.querySelector('[data-testid="sign-in"]').click();
      requestAnimationFrame(check);
    })`)) as number;
    samples.push(elapsed);
    await page.click('[data-testid="sign-out"]');
  }
  return samples;
}

/** Milliseconds from an agent's write (its own clock, the same machine's) to the line in the page's DOM. */
async function outputLatencies(page: Page, key: string): Promise<number[]> {
  await page.waitForSelector('[data-testid="api-key"]', WAIT);
  await page.type('[data-testid="api-key"]', key);
  await page.click('[data-testid="sign-in"]');
  await page.waitForSelector('[data-testid="tab-agents"]', WAIT);
  await page.click('[data-testid="tab-agents"]');
  await page.waitForSelector('[data-testid="spawn-name"]', WAIT);
  // Each line the agent prints carries its write time; the page notes when the line joins the DOM.
  await page.evaluate(`globalThis.latencies = [];
    new MutationObserver((records) => {
      const now = Date.now();
      for (const r of records)
        for (const node of r.addedNodes)
          for (const line of (node.textContent ?? '').split('\\n')) {
            const m = /^T(\\d+)$/.exec(line);
            if (m) globalThis.latencies.push(now - Number(m[1]));
          }
    }).observe(document.body, { childList: true, subtree: true });`);
  await page.type('[data-testid="spawn-name"]', 'bench-lines');
  await page.type('[data-testid="spawn-command"]', process.execPath);
  await page.type('[data-testid="spawn-args"]', `-e\nlet i = 0; const h = setInterval(() => { console.log('T' + Date.now()); if (++i >= ${LINES}) clearInterval(h); }, 20);`);
  await page.click('[data-testid="spawn"]');
  await page.waitForSelector('[data-testid="output-ended"]', { timeout: 60_000 });
  return (await page.evaluate('globalThis.latencies')) as number[];
}

/** Run the dashboard benchmark and return its report. */
export async function runUiBench(): Promise<string> {
  const uiRoot = repoPath('dist/ui');
  const loaded = await loadManifestSource(MANIFEST, { targetArch: 'x86_64', env: {} });
  if (!loaded.manifest || !loaded.sha256) throw new Error('ui bench: its manifest is invalid');
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-ui-bench-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
  writeFileSync(`${paths.sealFile}.tmp`, 'sealed\n');
  renameSync(`${paths.sealFile}.tmp`, paths.sealFile);
  const server = await startServer({
    manifest: loaded.manifest,
    manifestSha256: loaded.sha256,
    paths,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    logger: createLogger({ level: 'silent' }),
    listen: { apiHost: '127.0.0.1', apiPort: 0, metricsHost: '127.0.0.1', metricsPort: 0 },
    ui: { root: uiRoot },
  });
  // As root Chromium's own sandbox refuses to start; the page loads only this box's dashboard.
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--disable-gpu', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])] });
  try {
    const key = readFileSync(paths.apiKeyFile, 'utf8').trim();
    const page = await browser.newPage();
    const signIns = await signInTimes(page, server.apiUrl, key);
    const lines = await outputLatencies(page, key);
    if (lines.length < LINES * 0.9) throw new Error(`ui bench: only ${lines.length} of ${LINES} output lines reached the page`);
    const row = (name: string, s: number[], target: string) => [name, String(s.length), ms(median(s)), ms(quantile(s, 0.95)), ms(Math.max(...s)), target];
    return [
      `Dashboard — headless ${CHROMIUM}, the API in this process (sealed, local orchestrator, sandboxed agents), Node ${process.version}`,
      '',
      table(['shipped asset', 'gzip'], bundleSizes(uiRoot)),
      '',
      table(
        ['measure', 'n', 'p50', 'p95', 'max', 'target'],
        [row('sign-in click → overview READY on screen', signIns, '≤ 300 ms'), row('agent writes a line → line in the page', lines, 'p95 ≤ 100 ms')],
      ),
    ].join('\n');
  } finally {
    await browser.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
