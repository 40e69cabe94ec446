// The gate of every authenticated route: echo the request id, refuse new work while closing,
// require the API key (bearer), an agent's own token (within the route's agent scope), the
// dashboard's session cookie (with Origin and CSRF token on mutations) or, where operators are
// listed, a NIP-98 signed request.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { checkRouteAdmitsAgents, registerAgentPolicies } from '../auth/agent-access.js';
import { agentFromRequest, presentsAgentToken } from '../auth/agent-token-auth.js';
import { bearerAuthenticator } from '../auth/bearer-auth.js';
import { nip98Authenticate, nip98CheckBody, nip98HashBody, NOSTR_SCHEME } from '../auth/nip98-auth.js';
import '../auth/caller.js';
import { ApiError } from '../errors.js';
import type { Nip98Verifier } from '../mesh/nip98.js';
import type { AgentTokens } from '../credentials/agent-tokens.js';
import type { CredentialMetrics } from '../credentials/metrics.js';
import { AGENT_LISTENER_PROBES, agentListenerRefusal } from './agent-listener.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** The gate, for the not-found handler (unknown URLs need the key like any non-probe route). */
export type Gate = onRequestHookHandler & preHandlerHookHandler;

/** How requests authenticate. */
export interface GateAuth {
  /** The box API key (bearer). */
  key: string;
  /** NIP-98 checks; absent, `Authorization: Nostr …` is treated like any wrong key. */
  nip98?: Nip98Verifier;
  /** Mesh host: NIP-98 checks of member boxes, the only way into routes marked `config.meshMember`. */
  members?: Nip98Verifier;
  /** Live agent tokens; absent, only the API key (and NIP-98) authenticate. */
  agents?: AgentTokens;
  metrics?: CredentialMetrics;
  /**
   * The dashboard's session check (dashboard/session-auth.ts); absent, cookies are ignored. Runs only for
   * a request with a Cookie and no Authorization header, so key, token and NIP-98 requests never
   * parse a cookie. Agents are never given a session.
   */
  sessions?: (request: FastifyRequest, reply: FastifyReply) => 'accepted' | ApiError | undefined;
  /**
   * Whether a request came through the agents' listener (http/agent-listener.ts). There only agent
   * tokens authenticate, and public routes other than /livez and /ready are refused
   * (ABX_ERR_AGENT_LISTENER): no sign-in, no API key, no session, no NIP-98.
   */
  agentListener?: (request: FastifyRequest) => boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Mesh member routes (register, heartbeat, deregister): NIP-98 signed by a key of mesh.allowed_pubkeys, never the bearer key. */
    meshMember?: boolean;
  }
}

/**
 * Attach the gate to every route as it is declared, except public ones (`config.public`: the
 * probes). Per route rather than global, so a probe pays for no hook and no per-request
 * `request.routeOptions` lookup to learn that it is public; probes echo the request id
 * themselves and report shutdown through readiness. Requests that arrive while the app closes
 * get the uniform error body (ABX_ERR_SHUTTING_DOWN). Call this before any route is registered.
 * A NIP-98 request is checked in two steps: the token on arrival, the body hash after parsing.
 */
export function registerRequestGate(app: FastifyInstance, auth: GateAuth): Gate {
  const authenticate = bearerAuthenticator(auth.key);
  const { nip98, agents, sessions, agentListener } = auth;
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.decorateRequest('nip98', null);
  app.decorateRequest('dashboardSession', null);
  registerAgentPolicies(app, auth.metrics);
  const gate: Gate = function (this: unknown, request, reply, done) {
    void reply.header(REQUEST_ID_HEADER, request.id);
    if (closing) return done(new ApiError('ABX_ERR_SHUTTING_DOWN', 'the API is shutting down'));
    if (agentListener?.(request) && !(agents && presentsAgentToken(request))) return done(agentListenerRefusal(request));
    const header = request.headers.authorization;
    if (header === undefined && sessions && request.headers.cookie !== undefined) {
      const verdict = sessions(request, reply);
      if (verdict === 'accepted') return done();
      if (verdict) return done(verdict);
    }
    if (nip98 && header !== undefined && NOSTR_SCHEME.test(header)) {
      nip98Authenticate(nip98, header, request, reply).then(done, done);
      return;
    }
    // Agent tokens are told apart by their prefix, so the API key is hashed once per request.
    if (agents && presentsAgentToken(request)) {
      const agent = agentFromRequest(agents, request);
      if (agent) {
        request.agent = agent;
        return done(checkRouteAdmitsAgents(request, auth.metrics));
      }
      request.log.warn(
        { event: 'AuthRejected', scheme: 'agent-token', route: request.routeOptions.url ?? request.url },
        'rejected an unknown or revoked agent token',
      );
      void reply.header('www-authenticate', 'Bearer realm="agentbox"');
      return done(
        new ApiError('ABX_ERR_AUTH_INVALID', 'the agent token is unknown or revoked (an agent token stops working when its agent exits or is terminated)'),
      );
    }
    done(authenticate(request, reply));
  } as Gate;
  const members = auth.members;
  const memberGate: Gate = function (this: unknown, request, reply, done) {
    void reply.header(REQUEST_ID_HEADER, request.id);
    if (closing) return done(new ApiError('ABX_ERR_SHUTTING_DOWN', 'the API is shutting down'));
    if (agentListener?.(request)) return done(agentListenerRefusal(request));
    const header = request.headers.authorization;
    if (!members || header === undefined || !NOSTR_SCHEME.test(header)) {
      void reply.header('www-authenticate', 'Nostr realm="agentbox"');
      return done(
        new ApiError(
          'ABX_ERR_AUTH_REQUIRED',
          'mesh member routes require a NIP-98 signed request ("Authorization: Nostr <token>") by a key of the host\'s mesh.allowed_pubkeys',
        ),
      );
    }
    nip98Authenticate(members, header, request, reply).then(done, done);
  } as Gate;
  const checkBody = nip98 ? nip98CheckBody(nip98) : undefined;
  const checkMemberBody = members ? nip98CheckBody(members) : undefined;
  // Public routes skip the gate; on the agents' listener all but the probes are refused (sign-in above all).
  const publicOnAgentListener: onRequestHookHandler = function (this: unknown, request, reply, done) {
    if (!agentListener?.(request)) return done();
    void reply.header(REQUEST_ID_HEADER, request.id);
    done(agentListenerRefusal(request));
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.public === true) {
      if (agentListener && !AGENT_LISTENER_PROBES.has(route.url)) route.onRequest = prepend(publicOnAgentListener, route.onRequest);
      return;
    }
    if (route.config?.meshMember === true) {
      route.onRequest = prepend(memberGate, route.onRequest);
      if (checkMemberBody) {
        route.preParsing = prepend(nip98HashBody, route.preParsing);
        route.preValidation = prepend(checkMemberBody, route.preValidation);
      }
      return;
    }
    // First, so nothing else (rate limiting, body parsing) runs for a request without the key.
    route.onRequest = prepend(gate, route.onRequest);
    if (checkBody) {
      route.preParsing = prepend(nip98HashBody, route.preParsing);
      route.preValidation = prepend(checkBody, route.preValidation);
    }
  });
  return gate;
}

function prepend<T>(hook: T, existing: T | T[] | undefined): T[] {
  return existing === undefined ? [hook] : [hook, ...(Array.isArray(existing) ? existing : [existing])];
}
