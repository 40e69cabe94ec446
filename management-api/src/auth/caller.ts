// Who made an authenticated request, as the audit trail records it: never a credential, only whose it was.
import type { FastifyRequest } from 'fastify';
import type { SessionVia } from '../dashboard/session-store.js';
import './agent-access.js';
import './nip98-auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set (to how the session was opened) when the request authenticated with a dashboard session cookie. */
    dashboardSession: SessionVia | null;
  }
}

/**
 * Who asked for an action. `api-key`: the operator's bearer key; `nip98`: an operator key of
 * `mesh.operator_pubkeys` (its public key, hex); `session`: the dashboard, signed in with the key or
 * NIP-98; `agent`: an agent's own token; `box`: the box itself (a limit, a shutdown).
 */
export type Actor =
  | { kind: 'api-key' }
  | { kind: 'nip98'; pubkey: string }
  | { kind: 'session'; via: SessionVia }
  | { kind: 'agent'; agent: string; name: string }
  | { kind: 'box'; reason: string };

/** The caller of a request that passed the gate (the API key when nothing else authenticated it). */
export function callerOf(request: FastifyRequest): Actor {
  if (request.agent) return { kind: 'agent', agent: request.agent.id, name: request.agent.name };
  if (request.nip98) return { kind: 'nip98', pubkey: request.nip98.event.pubkey };
  if (request.dashboardSession) return { kind: 'session', via: request.dashboardSession };
  return { kind: 'api-key' };
}
