// WebSocket routes (@fastify/websocket) as a fastify plugin: upgrades go through the routes' hooks, the request gate first.
import fastifyWebsocket from '@fastify/websocket';
import fp from 'fastify-plugin';

/** Largest message a client may send (keystrokes, a paste, a resize): larger ones close the socket (1009). */
export const MAX_WEBSOCKET_MESSAGE = 64 * 1024;

/**
 * Registered before the routes. An upgrade request is routed like any GET, so the gate, rate
 * limiting and the error handler apply to it, and a refusal is answered as HTTP before any
 * upgrade. On close, the plugin ends every open socket (1001) before the server stops accepting.
 */
export const websocketPlugin = fp(
  async (app) => {
    await app.register(fastifyWebsocket, { options: { maxPayload: MAX_WEBSOCKET_MESSAGE, perMessageDeflate: false } });
  },
  { name: 'agentbox-websocket', dependencies: ['agentbox-request-gate'] },
);
