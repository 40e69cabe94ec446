// The metrics listener: a separate port, a real `promtool check metrics` pass, and every API metric kept current.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { freePort, TcpBackend } from './support/tcp-backend.js';
import { tcpAdapterModule } from './support/tcp-adapter.js';
import { startTestServer, waitFor } from './support/harness.js';

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n';

/** The value of the sample whose name and labels match `line` (a regex source before the value). */
function sample(text: string, line: string): number | undefined {
  const m = new RegExp(`^${line} ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

t.test('the scrape passes promtool and carries build info, HTTP, adapter and readiness metrics', async (t) => {
  const port = await freePort();
  const backend = new TcpBackend(port);
  await backend.start();
  const box = await startTestServer({
    toml: manifest,
    env: { AGENTBOX_IMAGE_HASH: 'sha256-test-image' },
    overrides: { events: tcpAdapterModule('events', port) },
  });
  t.teardown(async () => {
    await box.close();
    await backend.stop();
  });
  const scrape = async (): Promise<string> => {
    const res = await fetch(box.server.metricsUrl);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  let text = await scrape();
  t.equal(sample(text, 'agentbox_ready'), 0, 'not ready before the seal');
  await writeFile(box.paths.sealFile, '');
  await waitFor('READY', async () => (await box.api('/ready', { auth: false })).status === 200);
  t.equal((await box.api('/v1/events', { body: { kind: 'agent.note' } })).status, 201);
  t.equal((await box.api('/v1/nowhere')).status, 404);
  t.equal((await box.api('/v1/elsewhere', { auth: false })).status, 401, 'refused before any route matched');
  t.equal((await box.api('/v1/events', { body: { kind: 'agent.note' }, auth: false })).status, 401);

  text = await scrape();
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  t.equal(sample(text, `agentbox_build_info\\{version="${pkg.version}",image_hash="sha256-test-image",manifest_sha256="[0-9a-f]{64}"\\}`), 1, 'build info');
  t.equal(sample(text, 'agentbox_ready'), 1);
  t.equal(sample(text, 'agentbox_http_requests_total\\{method="POST",route="/v1/events",status="201"\\}'), 1);
  t.equal(sample(text, 'agentbox_http_requests_total\\{method="POST",route="/v1/events",status="401"\\}'), 1);
  t.equal(sample(text, 'agentbox_http_requests_total\\{method="GET",route="unmatched",status="404"\\}'), 1, 'unknown URLs share one label value');
  t.equal(sample(text, 'agentbox_http_requests_total\\{method="GET",route="unmatched",status="401"\\}'), 1, 'and are counted when refused too');
  t.equal(sample(text, 'agentbox_http_request_duration_seconds_count\\{method="GET",route="unmatched"\\}'), 2);
  t.ok((sample(text, 'agentbox_http_requests_total\\{method="GET",route="/ready",status="200"\\}') ?? 0) >= 1);
  t.equal(sample(text, 'agentbox_http_request_duration_seconds_count\\{method="POST",route="/v1/events"\\}'), 2);
  t.equal(sample(text, 'agentbox_adapter_dispatch_total\\{slot="events",impl="local-jsonl",method="append",outcome="ok"\\}'), 1);
  t.equal(sample(text, 'agentbox_adapter_duration_seconds_count\\{slot="events",impl="local-jsonl",method="append"\\}'), 1);
  t.equal(sample(text, 'agentbox_adapter_health\\{slot="events"\\}'), 1);
  t.equal(sample(text, 'agentbox_adapter_health\\{slot="beads"\\}'), 1, 'off counts as healthy-as-configured');
  t.equal(sample(text, 'agentbox_adapter_info\\{slot="events",impl="local-jsonl",adapter="events/tcp-test",contract_version="1.1.0"\\}'), 1);
  t.ok(sample(text, 'process_resident_memory_bytes'), 'default process metrics');
  t.ok(sample(text, 'nodejs_eventloop_lag_seconds') !== undefined, 'default Node.js metrics');

  const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  t.equal(check.error, undefined, 'promtool runs (apt prometheus)');
  t.equal(check.status, 0, `promtool check metrics passes: ${check.stdout}${check.stderr}`);

  await backend.stop();
  await waitFor('the health gauge to drop', async () => sample(await scrape(), 'agentbox_adapter_health\\{slot="events"\\}') === 0);
  const refused = await box.api('/v1/events', { body: { kind: 'agent.note' } });
  t.equal(refused.status, 503);
  text = await scrape();
  t.equal(sample(text, 'agentbox_adapter_dispatch_total\\{slot="events",impl="local-jsonl",method="append",outcome="degraded"\\}'), 1);
  t.equal(spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' }).status, 0, 'still valid with degraded series');
});

t.test('the metrics listener serves /metrics only; the API does not serve metrics', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const base = box.server.metricsUrl.replace(/\/metrics$/, '');
  t.not(box.server.metricsPort, box.server.apiPort, 'separate ports');
  t.equal((await fetch(`${base}/`)).status, 404);
  t.equal((await fetch(`${base}/metrics`, { method: 'POST' })).status, 404);
  const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal((await box.api('/metrics')).status, 404);
  t.equal(
    sample(await (await fetch(box.server.metricsUrl)).text(), 'agentbox_adapter_dispatch_total\\{slot="events",impl="off",method="append",outcome="off"\\}'),
    undefined,
  );
  t.equal((await box.api('/v1/events', { body: { kind: 'agent.note' } })).json['error'], 'ABX_ERR_ADAPTER_OFF');
  t.equal(
    sample(await (await fetch(box.server.metricsUrl)).text(), 'agentbox_adapter_dispatch_total\\{slot="events",impl="off",method="append",outcome="off"\\}'),
    1,
    'off dispatches are counted as off',
  );
});

t.test('request stats: cumulative buckets with le semantics, sums and counts per status', async (t) => {
  const { Registry } = await import('prom-client');
  const { RequestStats } = await import('../../management-api/src/observability/request-stats.js');
  const registry = new Registry();
  const stats = new RequestStats(registry, { counter: 'x_requests_total', histogram: 'x_seconds' }, { counter: 'c', histogram: 'h' }, [0.1, 1]);
  for (const [status, s] of [
    [200, 0.1],
    [200, 0.05],
    [500, 1],
    [200, 3],
  ] as const)
    stats.route('GET', '/a').record(status, s);
  const text = await registry.metrics();
  t.equal(sample(text, 'x_seconds_bucket\\{method="GET",route="/a",le="0.1"\\}'), 2, 'a value equal to a bound counts in that bucket');
  t.equal(sample(text, 'x_seconds_bucket\\{method="GET",route="/a",le="1"\\}'), 3);
  t.equal(sample(text, 'x_seconds_bucket\\{method="GET",route="/a",le="\\+Inf"\\}'), 4);
  t.equal(sample(text, 'x_seconds_sum\\{method="GET",route="/a"\\}'), 4.15);
  t.equal(sample(text, 'x_seconds_count\\{method="GET",route="/a"\\}'), 4);
  t.equal(sample(text, 'x_requests_total\\{method="GET",route="/a",status="200"\\}'), 3);
  t.equal(sample(text, 'x_requests_total\\{method="GET",route="/a",status="500"\\}'), 1);
  t.equal(spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' }).status, 0);
});
