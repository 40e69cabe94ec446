// The agents' own listener: a second HTTP server on 127.0.0.1 feeding the same fastify routes, capped and quick to drop idle connections.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { listenerUrl } from '../grammar/url.js';

/**
 * Connections the agents' listener holds at once, all agents together. Agents are adversarial and
 * each may open up to sandbox.limits.open_files descriptors; without a cap 25 of them exhausted the
 * API's own descriptors (soft limit 1024 under supervisord). 256 is a quarter of that limit, and far
 * above what well-behaved agents use (an SDK keeps a handful of keep-alive connections each). Past
 * it, new connections are closed on accept; the operator's listener is never affected.
 */
export const AGENT_MAX_CONNECTIONS = 256;

/**
 * Timeouts of the agents' listener, tighter than the operator's: a connection that sends no
 * complete request head within `headersMs`, or sits idle between requests for `keepAliveMs`, is
 * closed (checked every `checkMs`). Requests themselves are not limited: a provider stream may
 * run long.
 */
export const AGENT_LISTENER_TIMING = { headersMs: 10_000, keepAliveMs: 5_000, checkMs: 2_000 } as const;

/** Options of {@link createAgentListener}. */
export interface AgentListenerOptions {
  /** Where to listen: loopback (the container's own, in the image). Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port, told to each agent at spawn (AGENTBOX_API_URL). */
  port?: number;
  maxConnections?: number;
  timing?: Partial<typeof AGENT_LISTENER_TIMING>;
}

/** The agents' listener of one app. */
export interface AgentListener {
  /** Its port once listening, else undefined. */
  port(): number | undefined;
  /** The API's base URL for agents (`http://127.0.0.1:<port>`), or undefined before it listens. */
  url(): string | undefined;
  /** Whether `request` arrived through this listener. */
  carried(request: FastifyRequest): boolean;
  /** Connections open now. */
  connections(): number;
}

/**
 * Create the agents' listener of `app`: it starts when the app is ready (so its port is known
 * before any agent can be spawned) and closes with the app, cutting its connections. Requests are
 * routed by the app itself (`app.routing`); their sockets are remembered, so the request gate can
 * refuse there everything that is not for agents (http/request-gate.ts).
 */
export function createAgentListener(app: FastifyInstance, options: AgentListenerOptions = {}): AgentListener {
  const timing = { ...AGENT_LISTENER_TIMING, ...options.timing };
  const host = options.host ?? '127.0.0.1';
  const sockets = new WeakSet<Socket>();
  const server = http.createServer(
    { headersTimeout: timing.headersMs, keepAliveTimeout: timing.keepAliveMs, requestTimeout: 0, connectionsCheckingInterval: timing.checkMs },
    (req, res) => app.routing(req, res),
  );
  server.maxConnections = options.maxConnections ?? AGENT_MAX_CONNECTIONS;
  let open = 0;
  let dropped = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    open += 1;
    socket.once('close', () => (open -= 1));
  });
  server.on('drop', () => {
    // Logged once per 100 refusals: a flood must not flood the log too.
    if (dropped++ % 100 === 0)
      app.log.warn(
        { event: 'AgentConnectionsCapped', maxConnections: server.maxConnections, dropped },
        `the agents' listener holds ${server.maxConnections} connections; further ones are closed`,
      );
  });
  // A malformed request or a reset socket: answered by Node (400) or dropped, never an error of the API.
  server.on('clientError', (_err, socket) => socket.destroy());
  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port: options.port ?? 0 }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  });
  app.addHook('onClose', async () => {
    if (!server.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  });
  const port = (): number | undefined => (server.listening ? (server.address() as AddressInfo).port : undefined);
  return {
    port,
    url: () => {
      const p = port();
      return p === undefined ? undefined : listenerUrl(host, p);
    },
    carried: (request) => sockets.has(request.raw.socket),
    connections: () => open,
  };
}

/** Routes a request through the agents' listener may reach without an agent token: the liveness and readiness probes. */
export const AGENT_LISTENER_PROBES: ReadonlySet<string> = new Set(['/livez', '/ready']);

/** The refusal of a request through the agents' listener that is not an agent's. */
export function agentListenerRefusal(request: FastifyRequest): ApiError {
  return new ApiError(
    'ABX_ERR_AGENT_LISTENER',
    `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]} is not served on the agents' listener (AGENTBOX_API_URL): it answers agent-token routes, the provider broker, /livez and /ready; the dashboard, sign-in and the API key work on the operator's port only`,
  );
}
