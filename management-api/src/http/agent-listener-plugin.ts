// The agents' own listener as a fastify plugin: created with the app, listening once it is ready, closed with it; `app.agentListener`.
import fp from 'fastify-plugin';
import { createAgentListener, type AgentListener } from './agent-listener.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The agents' own listener (its URL is AGENTBOX_API_URL). */
    agentListener: AgentListener;
  }
}

/**
 * Agents get a listener of their own (http/agent-listener.ts): capped, refusing sign-in and the
 * API key, so no agent can exhaust the API's descriptors or spend the operator's sign-in budget.
 * It listens once the app is ready, before any spawn; its URL is what agents are told.
 */
export const agentListenerPlugin = fp(
  async (app) => {
    app.decorate('agentListener', createAgentListener(app));
  },
  { name: 'agentbox-agent-listener' },
);
