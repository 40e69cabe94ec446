// GET /v1/identity/proof?challenge=HEX: the box signs a caller's challenge with its identity, unauthenticated,
// so a command line holding this box's root can tell it reached this box before it sends the API key.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import '../app-state.js';
import { CHALLENGE_PATTERN, proofTemplate } from '../mesh/box-proof.js';
import { errorBodySchema } from '../errors.js';

/** A caller asks once per command: generous for scripts, a bound on signing for anyone else. */
const PROOF_LIMIT = { max: 600, timeWindow: 60_000 };

const proofSchema = {
  summary:
    'The box\'s answer to a challenge: a Nostr event (kind 22242, NIP-42\'s AUTH shape) signed with the box\'s identity, tags [["challenge", HEX]], content "agentbox box proof". `agentbox` commands ask for it and check it against the identity key under --root before they send that root\'s API key',
  tags: ['meta'],
  security: [],
  querystring: {
    type: 'object',
    required: ['challenge'],
    additionalProperties: false,
    properties: { challenge: { type: 'string', pattern: CHALLENGE_PATTERN, description: 'A challenge: 32 random bytes as 64 lower-case hex digits' } },
  },
  response: {
    200: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        pubkey: { type: 'string' },
        created_at: { type: 'integer' },
        kind: { type: 'integer' },
        tags: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
        content: { type: 'string' },
        sig: { type: 'string' },
      },
    },
    400: errorBodySchema,
    429: errorBodySchema,
  },
};

/** Register GET /v1/identity/proof (public, rate limited; never on the agents' listener's list). */
export function registerIdentityProofRoute(app: FastifyInstance): void {
  app.get<{ Querystring: { challenge: string } }>(
    '/v1/identity/proof',
    { config: { public: true, agent: 'deny', rateLimit: PROOF_LIMIT }, schema: proofSchema },
    async (request) => app.agentbox.identity.sign(proofTemplate(request.query.challenge, app.agentbox.clock())),
  );
}
