// What an agent token may do on each route: every route declares it (`config.agent`), undeclared means refused.
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler, preSerializationAsyncHookHandler } from 'fastify';
import { ApiError } from '../errors.js';
import type { CredentialMetrics } from '../credentials/metrics.js';
import type { AgentPrincipal } from '../credentials/agent-tokens.js';

/**
 * A route's rule for agent tokens, checked once the request is validated. `admit` throws (see
 * {@link outsideScope}) to refuse and may adjust the body; `reply` narrows or notes the answer.
 */
export interface AgentPolicy {
  admit?(request: FastifyRequest, agent: AgentPrincipal): void | Promise<void>;
  reply?(payload: unknown, agent: AgentPrincipal, request: FastifyRequest): unknown;
}

/** `deny` (also when a route declares nothing), `allow`, or a policy. */
export type AgentAccess = 'deny' | 'allow' | AgentPolicy;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a request carrying an agent token may do here; absent means `deny`. */
    agent?: AgentAccess;
    /** The provider broker: an agent token is also accepted in `x-api-key`, as provider SDKs send it. */
    agentKeyHeader?: boolean;
  }
  interface FastifyRequest {
    /** Set when the request authenticated with an agent token. */
    agent: AgentPrincipal | null;
  }
}

/** Everything an agent token may do, named in every refusal. */
export const AGENT_SCOPE =
  'an agent token reaches only its own beads (created by it or claimed by its name), the memory namespaces agent.<name> and agent.<name>.*, appending events (as source agent:<id>), its own record, output, workspace files and input requests under /v1/agents/<id>, and the provider broker /v1/providers/*';

/** The 403 for a request outside the agent's scope; `what` says what was refused. */
export function outsideScope(what: string): ApiError {
  return new ApiError('ABX_ERR_AGENT_SCOPE', `${what} is outside this agent's scope: ${AGENT_SCOPE}`);
}

/**
 * Refuse at once when the route does not admit agents at all (before the body is read). A URL no
 * route matches reaches nothing: it gets the 404 any caller gets (a typo, a trailing `/`), not a
 * refusal that names no route.
 */
export function checkRouteAdmitsAgents(request: FastifyRequest, metrics?: CredentialMetrics): ApiError | undefined {
  const route = request.routeOptions.url;
  if (route === undefined) return undefined;
  const access = request.routeOptions.config?.agent ?? 'deny';
  if (access !== 'deny') return undefined;
  metrics?.scopeRefusals.inc({ route });
  return outsideScope(`${request.method} ${route}`);
}

/** Attach each declared policy to its route (call before routes are registered). */
export function registerAgentPolicies(app: FastifyInstance, metrics?: CredentialMetrics): void {
  app.decorateRequest('agent', null);
  app.addHook('onRoute', (route) => {
    const access = route.config?.agent;
    if (access === undefined && route.config?.public !== true) {
      // Refused to agents all the same; the warning tells the author of a new route to decide.
      app.log.warn(
        { event: 'AgentAccessUndeclared', route: route.url, method: route.method },
        `route ${String(route.method)} ${route.url} declares no config.agent; agent tokens are refused there`,
      );
    }
    if (access === undefined || typeof access === 'string') return;
    const { admit, reply } = access;
    if (admit) {
      const hook: preHandlerAsyncHookHandler = async (request) => {
        if (!request.agent) return;
        try {
          await admit(request, request.agent);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'ABX_ERR_AGENT_SCOPE') metrics?.scopeRefusals.inc({ route: route.url });
          throw err;
        }
      };
      // First, so a refused request reaches no handler-side hook.
      route.preHandler = [hook, ...asArray(route.preHandler)];
    }
    if (reply) {
      const hook: preSerializationAsyncHookHandler<unknown> = async (request, _reply, payload) =>
        request.agent ? reply(payload, request.agent, request) : payload;
      route.preSerialization = [hook, ...asArray(route.preSerialization)];
    }
  });
}

function asArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
