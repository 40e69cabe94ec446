// GET /v1/meta: what this box is — version, image, manifest, federation, adapters, metrics endpoint.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import '../app-state.js';
import { errorBodySchema } from '../errors.js';
import { sandboxStatusSchema } from '../sandbox/sandbox-report.js';

/** `federation` in /v1/meta and /health: the mode and, for a client, its registration; for a host, its registry and members. */
export const federationSchema = {
  type: 'object',
  description:
    "mode standalone: {mode, state: disabled}. client: state (registering, registered, backing_off), hostUrl, host (the address in use), sessionId, heartbeatIntervalSec, registeredAt, lastHeartbeatAt, lastError, retryAt. host: registry, heartbeatIntervalSec, members {registered, evicted}, lastError, witness {verifierKey (the key cosignatures of members' checkpoints verify with), flagged}. A client also shows witness {hostKey, size, root, lastOutcome, lastMessage, lastCosignedAt, flagged}",
  properties: { mode: { type: 'string', enum: ['standalone', 'client', 'host'] } },
  additionalProperties: true,
} as const;

const adapterSchema = {
  type: 'object',
  properties: { impl: { type: 'string' }, adapter: { type: 'string' }, contractVersion: { type: 'string' }, state: { type: 'string' } },
};

const metaSchema = {
  summary:
    'Identity of the box: API version, Nostr identity (npub, hex public key, did:nostr), image hash, manifest sha256, federation mode, adapters and their contract versions, metrics endpoint',
  tags: ['meta'],
  response: {
    200: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        version: { type: 'string' },
        imageHash: { type: 'string' },
        manifestSha256: { type: 'string' },
        identity: { type: 'object', properties: { npub: { type: 'string' }, pubkey: { type: 'string' }, did: { type: 'string' } } },
        federation: federationSchema,
        adapters: { type: 'object', additionalProperties: adapterSchema },
        metrics: { type: 'object', properties: { url: { type: 'string' } } },
        agentApiUrl: {
          type: 'string',
          description: "the agents' listener: the API's base URL agents are given (AGENTBOX_API_URL), on 127.0.0.1; it serves agent-token routes only",
        },
        sandbox: sandboxStatusSchema,
        eventLog: {
          type: 'object',
          description: "the event log's origin and the signed-note verifier key its checkpoints verify with (absent when the events slot keeps no Merkle tree)",
          properties: { origin: { type: 'string' }, verifierKey: { type: 'string' } },
        },
      },
    },
    401: errorBodySchema,
  },
};

/** Register GET /v1/meta (authenticated). */
export function registerMetaRoute(app: FastifyInstance): void {
  app.get('/v1/meta', { config: { agent: 'deny' }, schema: metaSchema }, async () => metaBody(app));
}

/** The body of GET /v1/meta (also a part of the dashboard's overview). */
export async function metaBody(app: FastifyInstance) {
  const { manifest, version, imageHash, manifestSha256, metricsUrl, resolver, identity } = app.agentbox;
  return {
    name: manifest.agentbox.name,
    version,
    imageHash,
    manifestSha256,
    identity: identity.toJSON(),
    federation: await app.agentbox.federation.currentStatus(),
    adapters: Object.fromEntries(
      resolver.statuses().map((s) => [s.slot, { impl: s.impl, adapter: s.adapter, contractVersion: s.contractVersion, state: s.state }]),
    ),
    metrics: { url: metricsUrl },
    ...(app.agentbox.agentListener.url() ? { agentApiUrl: app.agentbox.agentListener.url() } : {}),
    sandbox: app.agentbox.sandbox.status(),
    ...(await eventLogKey(app)),
  };
}

/** The log's verifier key, when the events slot keeps a tree and is usable. */
async function eventLogKey(app: FastifyInstance): Promise<{ eventLog?: { origin: string; verifierKey: string } }> {
  try {
    const { origin, verifierKey } = await app.agentbox.resolver.slot('events').logKey();
    // An external adapter answers what its backend sends: only a well-formed key is published.
    return typeof origin === 'string' && typeof verifierKey === 'string' ? { eventLog: { origin, verifierKey } } : {};
  } catch {
    return {};
  }
}
