// Wraps the trace exporter so no span leaves the process carrying a credential: attribute values
// (url.path holds the query string), event attributes (exception messages), status messages and
// names are scrubbed the way log lines are.
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-node';
import { scrubSecrets } from '../secrets/redact.js';

function scrubValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return scrubSecrets(value);
  if (Array.isArray(value)) {
    const scrubbed = value.map((v) => (typeof v === 'string' ? scrubSecrets(v) : v));
    return scrubbed.some((v, i) => v !== value[i]) ? (scrubbed as AttributeValue) : value;
  }
  return value;
}

/** `attributes` with strings scrubbed; the same object when nothing changed (the usual case). */
function scrubAttributes(attributes: Attributes): Attributes {
  let out: Attributes | undefined;
  for (const [key, value] of Object.entries(attributes)) {
    const scrubbed = scrubValue(value);
    if (scrubbed === value) continue;
    out ??= { ...attributes };
    out[key] = scrubbed;
  }
  return out ?? attributes;
}

function scrubEvent(event: TimedEvent): TimedEvent {
  if (!event.attributes) return event;
  const attributes = scrubAttributes(event.attributes);
  return attributes === event.attributes ? event : { ...event, attributes };
}

/** A copy of `span` fit for export (or `span` itself when it holds nothing to scrub). */
export function scrubSpan(span: ReadableSpan): ReadableSpan {
  const name = scrubSecrets(span.name);
  const attributes = scrubAttributes(span.attributes);
  const events = span.events.map(scrubEvent);
  const message = span.status.message === undefined ? undefined : scrubSecrets(span.status.message);
  if (name === span.name && attributes === span.attributes && events.every((e, i) => e === span.events[i]) && message === span.status.message) return span;
  // Resource and scope are kept by reference: the exporter groups spans by their identity.
  return {
    name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanContext ? { parentSpanContext: span.parentSpanContext } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    status: message === undefined ? span.status : { ...span.status, message },
    attributes,
    links: span.links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/**
 * An exporter that scrubs every span, then hands it to `inner`. It sits behind the batch
 * processor, so the work happens off the request path, once per exported span.
 */
export function scrubbingExporter(inner: SpanExporter): SpanExporter {
  return {
    export: (spans, done) => inner.export(spans.map(scrubSpan), done),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
