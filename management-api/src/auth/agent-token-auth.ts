// Authentication with an agent token: the bearer header (or, on the provider broker, the x-api-key header SDKs send).
import type { FastifyRequest } from 'fastify';
import type { AgentPrincipal, AgentTokens } from '../credentials/agent-tokens.js';

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/**
 * The agent whose live token the request carries, or undefined (no token, an unknown or revoked
 * one: the caller then treats the header as a try at the API key, with its 401). The broker's
 * routes also accept the token in `x-api-key`, the header Anthropic's SDK authenticates with.
 */
export function agentFromRequest(tokens: AgentTokens, request: FastifyRequest): AgentPrincipal | undefined {
  const header = request.headers.authorization;
  const bearer = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (bearer !== undefined) return tokens.verify(bearer);
  if (header === undefined && request.routeOptions.config?.agentKeyHeader === true) {
    const key = request.headers['x-api-key'];
    if (typeof key === 'string') return tokens.verify(key.trim());
  }
  return undefined;
}

/** True when the request presents something shaped like an agent token (so a refusal can say it was revoked or unknown). */
export function presentsAgentToken(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  if (header !== undefined) return /^Bearer[ ]+abx_agent_/i.test(header);
  const key = request.headers['x-api-key'];
  return request.routeOptions.config?.agentKeyHeader === true && typeof key === 'string' && key.trim().startsWith('abx_agent_');
}
