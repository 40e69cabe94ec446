// GET /v1/auth/key-proof?challenge=HEX: the box proves it holds the API key without anyone sending it,
// so a command line reading a root's key can tell it reached that key's box before it sends the key.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import '../app-state.js';
import { CHALLENGE_PATTERN, keyProof } from '../auth/key-proof.js';
import { errorBodySchema } from '../errors.js';

/** A caller asks once per command: generous for scripts, a bound for anyone else. */
const PROOF_LIMIT = { max: 600, timeWindow: 60_000 };

const proofSchema = {
  summary:
    'Proof that this box holds an API key, without the key being sent: `proof` is HMAC-SHA256 of the challenge\'s bytes under HMAC-SHA256(apiKey, "agentbox key proof v1"), hex. `agentbox` commands ask for it and compare it with their own before they send the key under --root',
  tags: ['meta'],
  security: [],
  querystring: {
    type: 'object',
    required: ['challenge'],
    additionalProperties: false,
    properties: { challenge: { type: 'string', pattern: CHALLENGE_PATTERN, description: 'A challenge: 32 random bytes as 64 lower-case hex digits' } },
  },
  response: {
    200: { type: 'object', properties: { proof: { type: 'string' } } },
    400: errorBodySchema,
    429: errorBodySchema,
  },
};

/** Register GET /v1/auth/key-proof (public, rate limited; refused on the agents' listener, as every public route but the probes). */
export function registerKeyProofRoute(app: FastifyInstance): void {
  app.get<{ Querystring: { challenge: string } }>(
    '/v1/auth/key-proof',
    { config: { public: true, agent: 'deny', rateLimit: PROOF_LIMIT }, schema: proofSchema },
    async (request) => ({ proof: keyProof(app.apiKey, request.query.challenge) }),
  );
}
