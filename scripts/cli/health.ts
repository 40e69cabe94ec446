// `agentbox health [--url URL]`: find the box's metrics endpoint through /v1/meta, scrape it, and
// summarise readiness, adapter health and build info.
import { parseArgs } from 'node:util';
import { getFromBox, resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UserError } from './cli-errors.js';

export const usage = `Usage: agentbox health [--url URL] [--manifest FILE] [--root DIR] [--json]

Ask the box's /v1/meta where its metrics are served, scrape them, and summarise:
readiness (agentbox_ready), each adapter slot's health (agentbox_adapter_health) and build info.

Options:
${targetHelp}
  -h, --help       show this help

Exit codes: 0 ready and every slot healthy, 3 not ready or a slot degraded, 1 unreachable.`;

/** One sample of the Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parse the samples of a Prometheus text exposition (comments and HELP/TYPE lines skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: targetOptions });
  const target = await resolveTarget(values);
  const meta = await getFromBox(target, '/v1/meta');
  if (meta.status === 401) throw new UserError(`the box refused the API key from ${target.paths.apiKeyFile}; pass --root to point at the box's state`, 1);
  const metricsUrl = (meta.body as { metrics?: { url?: string } }).metrics?.url;
  if (meta.status !== 200 || !metricsUrl) throw new UserError(`${target.url}/v1/meta did not name a metrics endpoint (HTTP ${meta.status})`, 1);
  let text: string;
  try {
    const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
    text = await res.text();
  } catch (err) {
    throw new UserError(`cannot scrape ${metricsUrl}: ${(err as Error).message}`, 1);
  }
  const samples = parseExposition(text);
  const ready = samples.find((s) => s.name === 'agentbox_ready')?.value === 1;
  const slots = Object.fromEntries(samples.filter((s) => s.name === 'agentbox_adapter_health').map((s) => [s.labels['slot'] ?? '?', s.value]));
  const build = samples.find((s) => s.name === 'agentbox_build_info')?.labels ?? {};
  const healthy = ready && Object.values(slots).every((v) => v === 1);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ url: target.url, metricsUrl, ready, slots, build, samples: samples.length }, null, 2)}\n`);
  } else {
    process.stdout.write(`metrics ${metricsUrl} (${samples.length} samples)\n`);
    process.stdout.write(`ready: ${ready ? 'yes' : 'no'}\n`);
    for (const [slot, v] of Object.entries(slots)) process.stdout.write(`  ${slot.padEnd(13)} ${v === 1 ? 'healthy' : `unhealthy (${v})`}\n`);
    process.stdout.write(
      `build: ${Object.entries(build)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}\n`,
    );
  }
  return healthy ? 0 : 3;
}
