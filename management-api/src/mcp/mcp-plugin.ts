// POST /mcp: the box's MCP server over streamable HTTP (stateless), for the bearer key or an agent token, as a fastify plugin.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type {} from '@fastify/swagger';
import '../auth/agent-access.js';
import { Agentbox } from '../client/agentbox.js';
import { ApiError } from '../errors.js';
import { listenerUrl } from '../grammar/url.js';
import { inProcessFetch } from './in-process-fetch.js';

/** Where the API itself is reached from inside the process: its own listener, on loopback for a wildcard bind. */
function ownUrl(app: FastifyInstance): string {
  const address = app.server.address() as AddressInfo | null;
  if (!address || typeof address !== 'object') throw new ApiError('ABX_ERR_SHUTTING_DOWN', 'the API is not listening');
  return listenerUrl(address.address, address.port);
}

/**
 * The caller's own bearer credential (the API key or an agent token), passed on unchanged to every
 * call the tools make, so the API applies the caller's scope. A NIP-98 signature covers one URL
 * and is accepted once, and a dashboard session is the browser's: neither can be passed on.
 */
function bearerOf(request: FastifyRequest): string {
  const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!m)
    throw new ApiError(
      'ABX_ERR_AUTH_INVALID',
      '/mcp takes the box API key or an agent token as "Authorization: Bearer <token>": a NIP-98 signature or a dashboard session covers one request and cannot be passed on to the calls the tools make',
    );
  return m[1]!;
}

/**
 * The MCP SDK and the box's tools, loaded on the first call of /mcp: with the schema library they
 * bring, they were a twentieth of the API's start-up CPU, for a route many boxes never see.
 */
let mcpModules: Promise<[typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), typeof import('./mcp-server.js')]> | undefined;
const loadMcp = () => (mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('./mcp-server.js')]));

/**
 * The request as the SDK's web-standard transport reads it: method, URL and headers (the body goes
 * in already parsed). The SDK's Node transport would convert the whole request and response
 * through a second HTTP layer for every call; fastify has both at hand.
 */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(new URL(request.url, `http://${request.headers.host ?? 'localhost'}`), { method: request.method, headers });
}

/** Registers /mcp; the request gate (registered before) authenticates it like any route. */
export const mcpPlugin = fp(
  async (app) => {
    // Hidden from the OpenAPI document: JSON-RPC rather than a REST route of the typed client (docs/user/api.md describes it).
    app.post('/mcp', { config: { agent: 'allow' }, schema: { hide: true } }, async (request, reply) => {
      const url = ownUrl(app);
      const box = new Agentbox({ url, auth: { apiKey: bearerOf(request) }, retries: 0, fetch: inProcessFetch(app, url) });
      const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await loadMcp();
      const server = createMcpServer(box);
      // Stateless: one server and transport per request, JSON answers, nothing kept between calls.
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        const response = await transport.handleRequest(webRequestOf(request), { parsedBody: request.body });
        reply.code(response.status);
        response.headers.forEach((value, name) => {
          reply.header(name, value);
        });
        return reply.send(response.body ? await response.text() : undefined);
      } finally {
        void transport.close();
        void server.close();
      }
    });
    // No server-initiated stream and no session to end in stateless mode: the spec's answer is 405.
    const notAllowed = { config: { agent: 'allow' as const }, schema: { hide: true } };
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp',
        ...notAllowed,
        handler: async (_request, reply) =>
          reply
            .code(405)
            .header('allow', 'POST')
            .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: /mcp is stateless, POST only' }, id: null }),
      });
    }
  },
  { name: 'agentbox-mcp', dependencies: ['agentbox-request-gate', 'agentbox-routes'] },
);
