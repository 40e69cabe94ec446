// A fetch that answers from the API's own routes in this process (fastify's inject), for the calls /mcp's tools make on the caller's behalf.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** Header values as fetch gives them, flattened for inject. */
function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * A `fetch` for the typed client that /mcp's tools use. Each call goes through the same routing,
 * request gate, credential check, rate limit and hooks as a call over the socket (it is the same
 * app), but without a loopback connection and a second HTTP parse on each side: a tool call's
 * inner request was a good part of what MCP cost over the REST call it wraps. Answers stream
 * (an output follow is read as it comes), and aborting the signal closes the request on the
 * server's side as a client's going away would, so a follow ends its subscription.
 *
 * Only for URLs of `base` (the API's own); the client is made with that base, so nothing else comes.
 */
export function inProcessFetch(app: FastifyInstance, base: string): typeof fetch {
  const origin = new URL(base);
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.origin !== origin.origin) throw new TypeError(`in-process fetch: ${url.origin} is not this API (${origin.origin})`);
    const headers = headersOf(init);
    headers['host'] = url.host;
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))
      throw new TypeError('in-process fetch: a body is a string or bytes');
    const answer = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers,
      ...(body !== undefined && body !== null ? { payload: typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength) } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
      payloadAsStream: true,
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, String(v));
      else if (value !== undefined) responseHeaders.set(name, String(value));
    }
    const nullBody = answer.statusCode === 204 || answer.statusCode === 304 || init?.method === 'HEAD';
    const stream = answer.stream();
    if (nullBody) stream.resume();
    return new Response(nullBody ? null : (Readable.toWeb(stream) as ReadableStream<Uint8Array>), {
      status: answer.statusCode,
      statusText: answer.statusMessage,
      headers: responseHeaders,
    });
  };
}
