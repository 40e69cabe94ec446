// The typed core every method stands on: call a route by its key ("METHOD /path/{param}") with its generated types.
import { AgentboxError } from './errors.js';
import type { RouteKey, Routes } from './generated/api-types.js';
import { readSse, type SseMessage } from './sse.js';
import type { Transport } from './transport.js';

/** A route's inputs: params, query, headers and body as its schemas declare them. */
export type RouteInput<K extends RouteKey> = Omit<Routes[K], 'response'>;
/** A route's JSON answer. */
export type RouteResponse<K extends RouteKey> = Routes[K]['response'];

/** Per call: abort it, or accept statuses besides 2xx as answers. */
export interface CallOptions {
  signal?: AbortSignal;
}

// The input may be left out when nothing in it is required.
export type InputArgs<K extends RouteKey> =
  Record<never, never> extends RouteInput<K> ? [input?: RouteInput<K>, options?: CallOptions] : [input: RouteInput<K>, options?: CallOptions];

type LooseInput = { params?: Record<string, string>; query?: Record<string, unknown>; headers?: Record<string, string | undefined>; body?: unknown };

/** Split "GET /v1/agents/{id}" into method and path template. */
export function splitKey(key: string): { method: string; path: string } {
  const space = key.indexOf(' ');
  return { method: key.slice(0, space), path: key.slice(space + 1) };
}

/** Call `key` and parse its JSON answer. */
export function callRoute<K extends RouteKey>(
  transport: Transport,
  key: K,
  input: RouteInput<K> | undefined,
  options: CallOptions | undefined,
  accept?: readonly number[],
): Promise<RouteResponse<K>> {
  const loose = (input ?? {}) as LooseInput;
  return transport.json<RouteResponse<K>>({
    ...splitKey(key),
    params: loose.params,
    query: loose.query,
    headers: loose.headers,
    body: loose.body,
    signal: options?.signal,
    ...(accept ? { accept } : {}),
  });
}

/** Open `key` as an event stream and yield its messages; an `error` message ends it with an AgentboxError. */
export async function* streamRoute<K extends RouteKey>(
  transport: Transport,
  key: K,
  input: RouteInput<K> | undefined,
  options: CallOptions | undefined,
  lastEventId?: string,
): AsyncGenerator<SseMessage> {
  const loose = (input ?? {}) as LooseInput;
  const headers = { ...loose.headers, accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) };
  const res = await transport.send({ ...splitKey(key), params: loose.params, query: loose.query, headers, signal: options?.signal });
  if (!res.body) throw new AgentboxError('ABX_CLIENT_BAD_RESPONSE', res.status, `${key}: the answer has no body to stream`);
  try {
    for await (const message of readSse(res.body)) {
      if (message.event === 'error') throw streamError(message.data, res.status);
      yield message;
    }
  } catch (err) {
    if (options?.signal?.aborted && !(err instanceof AgentboxError))
      throw new AgentboxError('ABX_CLIENT_ABORTED', 0, `${key}: stream aborted`, undefined, { cause: err });
    throw err;
  }
}

function streamError(data: string, status: number): AgentboxError {
  try {
    const body = JSON.parse(data) as { error?: string; message?: string };
    return new AgentboxError((body.error ?? 'ABX_ERR_INTERNAL') as 'ABX_ERR_INTERNAL', status, body.message ?? 'the stream failed');
  } catch {
    return new AgentboxError('ABX_CLIENT_BAD_RESPONSE', status, `the stream ended with an unreadable error: ${data.slice(0, 200)}`);
  }
}
