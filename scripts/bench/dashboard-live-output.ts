// Live output latency: an agent writes lines stamped with the wall clock (after an optional backlog); the page stamps each line's arrival in the DOM and, beside it, on a raw EventSource.
import type { Browser } from 'puppeteer-core';
import type { BenchBox } from './dashboard-box.js';

/** Milliseconds from the agent's write to arrival, per line, on both paths. */
export interface LiveOutput {
  /** In the dashboard's output panel (a MutationObserver on the log). */
  dom: number[];
  /** On a raw EventSource on the same route in the same page, before any rendering. */
  raw: number[];
}

const WAIT = { timeout: 20_000 };

/**
 * The agent, a small Node script: first `backlog` lines (`B n`), each its own write 1 ms apart so
 * each becomes its own output chunk (an agent that has been talking for a while), then one line
 * every 20 ms carrying its write time in ms since the epoch (`L n <Date.now()>`).
 */
const TICKER = `const backlog = Number(process.argv[1]);
let i = 0;
const burst = () => {
  if (i < backlog) { process.stdout.write('B ' + ++i + '\\n'); setTimeout(burst, 1); return; }
  let n = 0;
  setInterval(() => process.stdout.write('L ' + ++n + ' ' + Date.now() + '\\n'), 20);
};
burst();`;

// In-page probes (strings: the bench compiles without DOM types). Each records, per line number,
// the first arrival (Date.now(): the same wall clock as the agent's, on the same machine) minus the
// write time the line carries.
const armProbes = (agentId: string, after: number): string => `(() => {
  const parse = (text, into) => {
    const now = Date.now();
    for (const m of text.matchAll(/L (\\d+) (\\d+)\\n/g)) if (!into.has(m[1])) into.set(m[1], { written: Number(m[2]), arrived: now });
  };
  const bench = (window.__live = { dom: new Map(), raw: new Map(), rawOpen: false });
  const log = document.querySelector('[data-testid="agent-output"]');
  parse(log.textContent, bench.dom);
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) parse(n.textContent, bench.dom);
  }).observe(log, { childList: true, subtree: true });
  const source = new EventSource('/v1/agents/${encodeURIComponent(agentId)}/output?follow=true&after=${after}');
  source.addEventListener('output', (e) => parse(JSON.parse(e.data).text, bench.raw));
  source.onopen = () => (bench.rawOpen = true);
  bench.source = source;
  return 0;
})()`;

/** Lines written after `since` that both paths have seen, as [dom, raw] latencies. */
const COLLECT = (since: number): string => `(() => {
  const { dom, raw } = window.__live;
  const out = { dom: [], raw: [] };
  for (const [n, d] of dom) {
    const r = raw.get(n);
    if (!r || d.written <= ${since}) continue;
    out.dom.push(d.arrived - d.written);
    out.raw.push(r.arrived - r.written);
  }
  return out;
})()`;

/**
 * Spawn the ticker, follow it in the dashboard's agents view, and time `lines` lines on both paths
 * once the panel holds the agent's `backlog` earlier chunks.
 */
export async function liveOutput(browser: Browser, box: BenchBox, lines: number, backlog: number): Promise<LiveOutput> {
  const name = `bench-ticker-${backlog}`;
  const context = await browser.createBrowserContext();
  let agentId: string | undefined;
  try {
    const page = await context.newPage();
    await page.goto(`${box.apiUrl}/ui/`, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid="view-sign-in"]', WAIT);
    await page.type('[data-testid="api-key"]', box.key);
    await page.click('[data-testid="sign-in"]');
    await page.waitForSelector('[data-testid="tab-agents"]', WAIT);
    await page.click('[data-testid="tab-agents"]');
    const spawned = await box.api('POST', '/v1/agents', { name, command: process.execPath, args: ['-e', TICKER, String(backlog)] });
    if (spawned.status !== 201) throw new Error(`dashboard bench: spawning the ticker answered ${spawned.status}: ${JSON.stringify(spawned.json)}`);
    agentId = String((spawned.json['agent'] as { id: string }).id);
    await page.waitForSelector(`[data-testid="agent-${name}"] [data-testid="follow"]`, WAIT);
    await page.click(`[data-testid="agent-${name}"] [data-testid="follow"]`);
    // Both paths attached and past their replay of what was written before: count from now on.
    await page.waitForFunction(`(document.querySelector('[data-testid="agent-output"]')?.textContent ?? '').includes('L 1 ')`, {
      timeout: 20_000 + backlog * 20,
    });
    // The raw stream starts after what the panel already shows (no replay to parse), and lines
    // count from half a second after both are attached, when the panel's first render is done.
    const logged = await box.api('GET', `/v1/agents/${encodeURIComponent(agentId)}/output`);
    const after = (logged.json['chunks'] as Array<{ seq: number }>).at(-1)?.seq ?? 0;
    await page.evaluate(armProbes(agentId, after));
    await page.waitForFunction('window.__live.rawOpen && window.__live.raw.size > 0', WAIT);
    const since = Number(await page.evaluate('Date.now()')) + 500;
    const deadline = Date.now() + lines * 20 * 4 + 20_000;
    for (;;) {
      const seen = (await page.evaluate(COLLECT(since))) as LiveOutput;
      if (seen.dom.length >= lines) return { dom: seen.dom.slice(0, lines), raw: seen.raw.slice(0, lines) };
      if (Date.now() > deadline) throw new Error(`dashboard bench: only ${seen.dom.length} of ${lines} lines reached the page`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    if (agentId) await box.api('DELETE', `/v1/agents/${encodeURIComponent(agentId)}`);
    await context.close();
  }
}
