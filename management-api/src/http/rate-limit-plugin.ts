// Rate limiting of mutating routes as a fastify plugin: @fastify/rate-limit, counting each agent, the agents' listener and every other address apart.
import fastifyRateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';

/** Routes opt in (`global: false`); the limits themselves are per route (routes/, the provider broker). */
export const rateLimitPlugin = fp(
  async (app) => {
    const { agentListener } = app;
    await app.register(fastifyRateLimit, {
      global: false,
      // The gate runs first, so an agent is known here: each agent gets a budget of its own instead
      // of sharing 127.0.0.1's with the operator and every other agent (a runaway agent must not
      // lock the operator out). Everyone else is counted by listener and address: whatever comes
      // through the agents' listener never counts against the operator's budget (sign-in above all).
      keyGenerator: (request) => (request.agent ? `agent:${request.agent.id}` : agentListener.carried(request) ? `agent-listener:${request.ip}` : request.ip),
      errorResponseBuilder: (_request, context) => new ApiError('ABX_ERR_RATE_LIMITED', `rate limit of ${context.max} requests per ${context.after} exceeded`),
    });
  },
  // After the gate: its hooks run first on each route, so the agent is known when the key is made.
  { name: 'agentbox-rate-limit', dependencies: ['agentbox-agent-listener', 'agentbox-request-gate'] },
);
