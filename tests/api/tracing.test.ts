// Traces: with an OTLP endpoint, request spans and adapter dispatch spans reach a real OTLP/HTTP receiver.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTelemetry } from '../../management-api/src/observability/telemetry.js';

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  status?: { code?: number };
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: number | string } }>;
}
interface OtlpExport {
  resourceSpans: Array<{ resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

const attr = (s: { attributes: OtlpSpan['attributes'] }, key: string): string | undefined => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? String(v.intValue) : undefined);
};

t.test('spans for requests and adapter dispatches arrive at the OTLP endpoint', async (t) => {
  const exports: OtlpExport[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;

  // As the server does: telemetry first, then the app is loaded.
  const telemetry = await startTelemetry({ endpoint, serviceVersion: '0.0.0-test', imageHash: 'dev', boxName: 'traced-box' });
  t.teardown(() => telemetry.shutdown());
  t.ok(telemetry.exporting);
  const { startTestServer } = await import('./support/harness.js');
  const { freePort, TcpBackend } = await import('./support/tcp-backend.js');
  const { tcpAdapterModule } = await import('./support/tcp-adapter.js');
  const port = await freePort();
  const backend = new TcpBackend(port);
  await backend.start();
  const box = await startTestServer({
    toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n',
    overrides: { events: tcpAdapterModule('events', port) },
  });
  t.teardown(async () => {
    await box.close();
    await backend.stop();
  });

  t.equal((await box.api('/v1/events', { body: { kind: 'agent.traced' } })).status, 201);
  // A caller already inside a trace (W3C traceparent) gets its request span joined to that trace.
  const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  t.equal((await box.api('/v1/events', { body: { kind: 'agent.joined' }, headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` } })).status, 201);
  t.equal((await box.api('/ready', { auth: false })).status, 503);
  // Credentials in the URL: a key refused in the query string, a token on an accepted request.
  t.equal((await box.api(`/v1/events?api_key=${box.key}`, { auth: false })).status, 401);
  t.equal((await box.api('/v1/events?access_token=trace-token-1234&x=1', { body: { kind: 'agent.query' } })).status, 201);
  await backend.stop();
  await box.api('/v1/events', { body: { kind: 'agent.failed' } });
  await telemetry.flush();

  const spans = exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
  const resource = exports[0]?.resourceSpans[0]?.resource;
  t.ok(resource, 'an export arrived');
  t.equal(resource && attr(resource, 'service.name'), 'agentbox-api');
  t.equal(resource && attr(resource, 'service.instance.id'), 'traced-box');

  const exported = JSON.stringify(exports);
  t.notOk(exported.includes(box.key), 'the API key sent in a query string is in no span');
  t.notOk(exported.includes('trace-token-1234'), 'nor is a token sent in a query string');
  const paths = spans.flatMap((s) => s.attributes.filter((a) => a.key === 'url.path').map((a) => a.value.stringValue));
  t.ok(paths.includes('/v1/events?api_key=[Redacted]'), 'the refused request keeps its span, with the key redacted');
  t.ok(paths.includes('/v1/events?access_token=[Redacted]&x=1'), 'harmless parameters stay');

  const dispatches = spans.filter((s) => s.name === 'adapter events.append');
  t.equal(dispatches.length, 4, 'one span per dispatch');
  const [ok, joined, , failed] = dispatches;
  t.equal(ok && attr(ok, 'agentbox.adapter.outcome'), 'ok');
  t.equal(ok && attr(ok, 'agentbox.adapter.impl'), 'local-jsonl');
  t.equal(failed && attr(failed, 'agentbox.adapter.outcome') !== 'ok', true, 'the failed dispatch is marked');
  t.equal(failed?.status?.code, 2, 'with an error status');

  const sameTrace = spans.filter((s) => s.traceId === ok?.traceId && s !== ok);
  t.ok(sameTrace.length >= 1, 'the dispatch span belongs to the request trace');
  t.ok(
    sameTrace.some((s) => s.spanId === ok?.parentSpanId),
    'and is a child of a request span',
  );
  t.ok(
    sameTrace.some((s) => Object.values(s.attributes).some((a) => a.value.stringValue === '/v1/events')),
    'the request span names the route',
  );
  t.notOk(
    spans.some((s) => s.attributes.some((a) => a.value.stringValue === '/ready')),
    'probes are not traced',
  );

  t.equal(joined?.traceId, callerTrace, "the dispatch continues the caller's trace");
  const callerChildren = spans.filter((s) => s.traceId === callerTrace && s.parentSpanId === callerSpan);
  t.equal(callerChildren.length, 1, "one request span is the caller's child");
  t.not(ok?.traceId, callerTrace, 'requests without traceparent start their own trace');
});

t.test('without an endpoint nothing is registered and calls are no-ops', async (t) => {
  const telemetry = await startTelemetry({ endpoint: '', serviceVersion: 'x', imageHash: 'dev', boxName: 'b' });
  t.equal(telemetry.exporting, false);
  await telemetry.flush();
  await telemetry.shutdown();
});

t.test('exception events, status messages and names are scrubbed on export too', async (t) => {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-node');
  const { scrubbingExporter } = await import('../../management-api/src/observability/scrubbing-exporter.js');
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(scrubbingExporter(memory))] });
  t.teardown(() => provider.shutdown());
  const tracer = provider.getTracer('scrub-test');
  const span = tracer.startSpan('GET /hook?token=name-secret-1', {
    attributes: { 'url.full': 'https://u:attr-pass-2@h/p?sig=attr-sig-3&q=1', list: ['a', '/x?key=list-key-4'], count: 3 },
  });
  span.recordException(new Error('POST https://h/p?apikey=exc-key-5 refused'));
  span.setStatus({ code: 2, message: 'failed calling https://h/p?password=status-pw-6' });
  span.end();
  const clean = tracer.startSpan('plain', { attributes: { 'url.path': '/v1/meta' } });
  clean.end();
  await provider.forceFlush();
  const [scrubbed, plain] = memory.getFinishedSpans();
  const text = JSON.stringify(scrubbed, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  for (const secret of ['name-secret-1', 'attr-pass-2', 'attr-sig-3', 'list-key-4', 'exc-key-5', 'status-pw-6'])
    t.notOk(text.includes(secret), `${secret} is scrubbed`);
  t.equal(scrubbed?.name, 'GET /hook?token=[Redacted]');
  t.equal(scrubbed?.attributes['url.full'], 'https://u:[Redacted]@h/p?sig=[Redacted]&q=1');
  t.same(scrubbed?.attributes['list'], ['a', '/x?key=[Redacted]']);
  t.equal(scrubbed?.attributes['count'], 3);
  t.equal(scrubbed?.events[0]?.attributes?.['exception.message'], 'POST https://h/p?apikey=[Redacted] refused');
  t.equal(scrubbed?.status.message, 'failed calling https://h/p?password=[Redacted]');
  t.equal(scrubbed?.spanContext().spanId, span.spanContext().spanId, 'the copy keeps its identity');
  t.equal(plain?.attributes['url.path'], '/v1/meta', 'a span with nothing to scrub is passed on as it is');
});
