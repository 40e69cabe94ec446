// Each agent's own egress proxy credential: minted at spawn, handed over only in the agent's proxy variables, revoked when it exits.
import { randomBytes } from 'node:crypto';
import { hashCredential } from './credential-store.js';
import type { Autonomy } from '../policy/policy-types.js';

/** What the proxy's [policy] decisions know of an agent besides its id: its name and, when its spawn set one, its autonomy. */
export interface AgentFacts {
  name: string;
  autonomy?: Autonomy;
  /** Egress entries the proxy admits for this agent alone, after the box's allowlist (its profile's egress.allow_domains). */
  allowDomains?: string[];
}

/** What the orchestrator asks of the egress proxy at an agent's spawn and exit. */
export interface AgentEgress {
  /**
   * Register a fresh credential for `agentId` and return the variables that send the agent's
   * HTTP clients through the proxy with it. Throws when the proxy cannot be told (the spawn is
   * then refused: an agent never starts with a credential the proxy does not know).
   */
  issue(agentId: string, facts?: AgentFacts): Promise<Record<string, string>>;
  /** Revoke the agent's credential (it exited); never throws. */
  revoke(agentId: string): void;
}

/** The variables the box sets for the proxy; a spawn request may not set them. */
export const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'NODE_USE_ENV_PROXY'] as const;

/**
 * Hosts agents reach directly: the management API (and the provider broker inside it) on
 * loopback, by address or name. Anything else goes through the proxy, which refuses loopback
 * unless listed.
 */
export const NO_PROXY = '127.0.0.1,localhost,::1';

/** A new credential: the secret (only ever in the agent's environment) and the hash the proxy stores. */
export function newProxyCredential(): { secret: string; hash: string } {
  const secret = randomBytes(24).toString('base64url');
  return { secret, hash: hashCredential(secret) };
}

/**
 * `HTTP_PROXY=http://<agent id>:<secret>@127.0.0.1:<port>` and its companions, upper and lower
 * case (curl reads only lower-case http_proxy, Python and Go either, npm and git both), and
 * NODE_USE_ENV_PROXY=1, which makes Node (22.21 and later, 24.5 and later) send its `http`,
 * `https` and `fetch` requests through them; older Node ignores it (docs/user/sandbox.md, "Egress").
 */
export function proxyEnvironment(agentId: string, secret: string, port: number): Record<string, string> {
  const url = `http://${agentId}:${secret}@127.0.0.1:${port}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, NO_PROXY, http_proxy: url, https_proxy: url, no_proxy: NO_PROXY, NODE_USE_ENV_PROXY: '1' };
}
