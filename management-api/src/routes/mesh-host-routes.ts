// Host mode routes: members register, heartbeat and deregister (NIP-98 by an allowed key); operators list the members.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { npubEncode } from 'nostr-tools/nip19';
import '../app-state.js';
import { requestUrl } from '../auth/nip98-auth.js';
import { ApiError, errorBodySchema } from '../errors.js';
import { pubkeyToHex } from '../grammar/pubkey.js';
import { registryCall, type MeshHost } from '../mesh/host/mesh-host.js';
import type { Beat, MemberRecord, Registration, WitnessRecord } from '../mesh/host/registry.js';
import { MAX_PROOF_HASHES } from '../mesh/host/witness-decision.js';

const PUBKEY = '^([0-9a-f]{64}|npub1[02-9ac-hj-np-z]{58})$';
const capacitySchema = {
  type: 'object',
  required: ['agents_running', 'free_memory_bytes'],
  properties: { agents_running: { type: 'integer', minimum: 0 }, free_memory_bytes: { type: 'integer', minimum: 0 } },
} as const;
const stringMap = { type: 'object', maxProperties: 32, additionalProperties: { type: 'string', maxLength: 200 } } as const;
const sessionParams = { type: 'object', required: ['session_id'], properties: { session_id: { type: 'string', pattern: '^[0-9a-f-]{36}$' } } } as const;
// What the witness tells a member with every registration and heartbeat answer (mesh/host/witness.ts).
const witnessAnswerSchema = {
  type: 'object',
  description:
    "The host as witness of the member's event log: its witness verifier key, the outcome of the checkpoint offered, the last size and root cosigned, the cosignature line when one was made",
  properties: {
    verifier_key: { type: 'string' },
    outcome: { type: 'string', enum: ['cosigned', 'none', 'proof-needed', 'malformed', 'refused'] },
    size: { type: ['integer', 'null'] },
    root: { type: ['string', 'null'] },
    cosignature: { type: 'string' },
    reason: { type: 'string' },
    message: { type: 'string' },
    flagged: { type: 'boolean' },
  },
} as const;
const BASE64_HASH = '^[A-Za-z0-9+/]{43}=$';
const witnessOfferSchema = {
  type: 'object',
  required: ['checkpoint'],
  additionalProperties: false,
  description: "The member's latest signed checkpoint and, when the host cosigned a smaller size, a consistency proof from that size",
  properties: {
    checkpoint: { type: 'string', maxLength: 4096 },
    verifier_key: { type: 'string', maxLength: 300 },
    proof: {
      type: 'object',
      required: ['from', 'path'],
      additionalProperties: false,
      properties: {
        from: { type: 'integer', minimum: 0 },
        path: { type: 'array', maxItems: MAX_PROOF_HASHES, items: { type: 'string', pattern: BASE64_HASH } },
      },
    },
  },
} as const;

const memberErrors = { 400: errorBodySchema, 401: errorBodySchema, 410: errorBodySchema, 503: errorBodySchema };

const registerSchema = {
  summary:
    'Mesh host: register a member box (NIP-98 signed by a key of mesh.allowed_pubkeys; pubkey must be the signer). Answers the session, the heartbeat interval and the endpoints to use from then on',
  tags: ['mesh'],
  security: [{ nostr: [] }],
  body: {
    type: 'object',
    required: ['pubkey', 'image_hash', 'manifest_sha256', 'adapters', 'contract_versions', 'api_endpoint', 'capacity'],
    properties: {
      pubkey: { type: 'string', pattern: PUBKEY },
      image_hash: { type: 'string', maxLength: 200 },
      manifest_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      adapters: stringMap,
      contract_versions: stringMap,
      api_endpoint: { type: 'string', pattern: '^https?://', maxLength: 2000 },
      capacity: capacitySchema,
      name: { type: 'string', maxLength: 200, description: "The member box's agentbox.name, shown to operators" },
      event_log: {
        type: 'object',
        required: ['verifier_key'],
        additionalProperties: false,
        properties: { verifier_key: { type: 'string', maxLength: 300 } },
        description: "The verifier key of the member's event log (absent when its events slot keeps no Merkle tree); pinned by the host as witness",
      },
    },
  },
  response: {
    201: {
      type: 'object',
      properties: {
        session_id: { type: 'string' },
        heartbeat_interval_sec: { type: 'integer' },
        endpoints: { type: 'object', properties: { heartbeat: { type: 'string' }, deregister: { type: 'string' }, members: { type: 'string' } } },
        replicas: {
          type: 'array',
          items: { type: 'string' },
          description: 'API URLs of the host replicas sharing this registry; a member may send its calls to another one when the one it uses is unreachable',
        },
        witness: witnessAnswerSchema,
      },
    },
    ...memberErrors,
  },
};

const heartbeatSchema = {
  summary: 'Mesh host: a member heartbeat with its health and capacity; 410 when the session is unknown, ended or evicted (register again)',
  tags: ['mesh'],
  security: [{ nostr: [] }],
  params: sessionParams,
  body: {
    type: 'object',
    required: ['health', 'capacity'],
    properties: {
      health: {
        type: 'object',
        maxProperties: 32,
        required: ['ready', 'status'],
        properties: { ready: { type: 'boolean' }, status: { type: 'string', maxLength: 40 } },
      },
      capacity: capacitySchema,
      witness: witnessOfferSchema,
    },
  },
  response: { 200: { type: 'object', properties: { heartbeat_interval_sec: { type: 'integer' }, witness: witnessAnswerSchema } }, ...memberErrors },
};

const memberSchema = {
  type: 'object',
  properties: {
    pubkey: { type: 'string' },
    npub: { type: 'string' },
    name: { type: ['string', 'null'], description: 'The box name the member registered with (null when it sent none)' },
    state: { type: 'string', enum: ['registered', 'evicted'] },
    api_endpoint: { type: 'string' },
    image_hash: { type: 'string' },
    manifest_sha256: { type: 'string' },
    adapters: { type: 'object', additionalProperties: { type: 'string' } },
    contract_versions: { type: 'object', additionalProperties: { type: 'string' } },
    health: { type: ['object', 'null'], additionalProperties: true },
    capacity: { type: 'object', additionalProperties: true },
    registered_at: { type: 'string' },
    last_heartbeat_at: { type: 'string' },
    evicted_at: { type: ['string', 'null'] },
    witness: {
      type: 'object',
      description:
        "The host as witness of the member's event log. state: none (nothing cosigned), cosigned, inconsistent (flagged: refused a cosignature until an operator clears it)",
      properties: {
        state: { type: 'string', enum: ['none', 'cosigned', 'inconsistent'] },
        log_key: { type: ['string', 'null'] },
        size: { type: ['integer', 'null'] },
        root: { type: ['string', 'null'] },
        cosigned_at: { type: ['string', 'null'] },
        reason: { type: 'string' },
        detail: { type: 'string' },
        flagged_at: { type: 'string' },
      },
    },
  },
};

type RegisterBody = {
  pubkey: string;
  image_hash: string;
  manifest_sha256: string;
  adapters: Record<string, string>;
  contract_versions: Record<string, string>;
  api_endpoint: string;
  capacity: Registration['capacity'];
  name?: string;
  event_log?: { verifier_key: string };
};
type BeatBody = Beat & { witness?: { checkpoint: string; verifier_key?: string; proof?: { from: number; path: string[] } } };

/** The member's hex key: the NIP-98 signer (the member gate always sets it on these routes). */
function signer(request: FastifyRequest): string {
  const pubkey = request.nip98?.event.pubkey;
  if (!pubkey) throw new ApiError('ABX_ERR_AUTH_REQUIRED', 'mesh member routes require a NIP-98 signed request');
  return pubkey;
}

const gone = (id: string): ApiError =>
  new ApiError(
    'ABX_ERR_MESH_SESSION_GONE',
    `no live mesh session ${id} for this key (unknown, ended, or evicted after missed heartbeats): register again with POST /v1/register`,
  );

function memberView(m: MemberRecord) {
  return {
    pubkey: m.pubkey,
    npub: npubEncode(m.pubkey),
    name: m.name,
    state: m.state,
    api_endpoint: m.apiEndpoint,
    image_hash: m.imageHash,
    manifest_sha256: m.manifestSha256,
    adapters: m.adapters,
    contract_versions: m.contractVersions,
    health: m.health,
    capacity: m.capacity,
    registered_at: m.registeredAt,
    last_heartbeat_at: m.lastHeartbeatAt,
    evicted_at: m.evictedAt,
    witness: witnessView(m.witness),
  };
}

function witnessView(w: WitnessRecord | null) {
  const cosigned = { log_key: w?.logKey ?? null, size: w?.cosigned?.size ?? null, root: w?.cosigned?.root ?? null, cosigned_at: w?.cosigned?.at ?? null };
  if (w?.flag) return { state: 'inconsistent', ...cosigned, reason: w.flag.reason, detail: w.flag.detail, flagged_at: w.flag.at };
  return { state: w?.cosigned ? 'cosigned' : 'none', ...cosigned };
}

/** Register the host routes (only in mode host). */
export function registerMeshHostRoutes(app: FastifyInstance, host: MeshHost): void {
  // Agents never reach these: member routes take only a member box's NIP-98 signature, and the list is the operator's.
  const member = { config: { meshMember: true, agent: 'deny' }, bodyLimit: 64 * 1024 } as const;
  const metrics = host.metrics;

  app.post<{ Body: RegisterBody }>('/v1/register', { ...member, schema: registerSchema }, async (request, reply) => {
    const pubkey = signer(request);
    if (pubkeyToHex(request.body.pubkey) !== pubkey)
      throw new ApiError('ABX_ERR_VALIDATION', `body.pubkey must be the key that signed the request (${pubkey})`);
    const b = request.body;
    const sessionId = randomUUID();
    const registration: Registration = {
      pubkey,
      imageHash: b.image_hash,
      manifestSha256: b.manifest_sha256,
      adapters: b.adapters,
      contractVersions: b.contract_versions,
      apiEndpoint: b.api_endpoint,
      capacity: b.capacity,
      ...(b.name !== undefined ? { name: b.name } : {}),
    };
    await registryCall(() => host.registry.register(registration, sessionId, host.ttlMs));
    const replicas = await registryCall(() => host.registry.replicas());
    const witness = await registryCall(() => host.witness.registered(pubkey, b.event_log?.verifier_key));
    metrics.hostRequests.inc({ call: 'register', outcome: 'ok' });
    request.log.info({ event: 'MeshMemberRegistered', pubkey, sessionId, apiEndpoint: b.api_endpoint }, `mesh member ${pubkey} registered`);
    // The endpoints are on the address the member reached (a shared address stays shared).
    const base = new URL(requestUrl(request)).origin;
    void reply.code(201);
    return {
      session_id: sessionId,
      heartbeat_interval_sec: host.heartbeatIntervalSec,
      endpoints: {
        heartbeat: `${base}/v1/mesh/sessions/${sessionId}/heartbeat`,
        deregister: `${base}/v1/mesh/sessions/${sessionId}`,
        members: `${base}/v1/mesh/members`,
      },
      replicas,
      witness,
    };
  });

  app.post<{ Params: { session_id: string }; Body: BeatBody }>(
    '/v1/mesh/sessions/:session_id/heartbeat',
    { ...member, schema: heartbeatSchema },
    async (request) => {
      const pubkey = signer(request);
      const { witness: offer, ...beat } = request.body;
      const ok = await registryCall(() => host.registry.heartbeat(request.params.session_id, pubkey, beat, host.ttlMs));
      metrics.hostRequests.inc({ call: 'heartbeat', outcome: ok ? 'ok' : 'gone' });
      if (!ok) throw gone(request.params.session_id);
      // Only a live session's checkpoint is judged: the signer is the member the session belongs to.
      const witness = await registryCall(() =>
        host.witness.offer(
          pubkey,
          offer && {
            checkpoint: offer.checkpoint,
            ...(offer.verifier_key !== undefined ? { verifierKey: offer.verifier_key } : {}),
            ...(offer.proof ? { proof: offer.proof } : {}),
          },
        ),
      );
      return { heartbeat_interval_sec: host.heartbeatIntervalSec, witness };
    },
  );

  app.delete<{ Params: { session_id: string } }>(
    '/v1/mesh/sessions/:session_id',
    {
      ...member,
      schema: {
        summary: 'Mesh host: end a member session (204); later heartbeats get 410',
        tags: ['mesh'],
        security: [{ nostr: [] }],
        params: sessionParams,
        response: { 204: { type: 'null' }, ...memberErrors },
      },
    },
    async (request, reply) => {
      const pubkey = signer(request);
      const ok = await registryCall(() => host.registry.deregister(request.params.session_id, pubkey));
      metrics.hostRequests.inc({ call: 'deregister', outcome: ok ? 'ok' : 'gone' });
      if (!ok) throw gone(request.params.session_id);
      request.log.info({ event: 'MeshMemberDeregistered', pubkey, sessionId: request.params.session_id }, `mesh member ${pubkey} deregistered`);
      void reply.code(204);
    },
  );

  app.get(
    '/v1/mesh/members',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Mesh host: the members, with health and capacity (evicted members stay listed as evicted for a day, or until they register again)',
        tags: ['mesh'],
        response: {
          200: { type: 'object', properties: { heartbeat_interval_sec: { type: 'integer' }, members: { type: 'array', items: memberSchema } } },
          401: errorBodySchema,
          503: errorBodySchema,
        },
      },
    },
    async () => membersBody(host),
  );

  app.delete<{ Params: { pubkey: string } }>(
    '/v1/mesh/members/:pubkey/witness',
    {
      // The operator's (bearer key or an operator's NIP-98): a member cannot clear its own flag.
      config: { agent: 'deny' },
      schema: {
        summary:
          'Mesh host: clear the witness record of a member (its flag, pinned log key and last checkpoint cosigned); its next offer starts afresh. 204, or 404 when there is none',
        tags: ['mesh'],
        params: { type: 'object', required: ['pubkey'], properties: { pubkey: { type: 'string', pattern: PUBKEY } } },
        response: { 204: { type: 'null' }, 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema, 503: errorBodySchema },
      },
    },
    async (request, reply) => {
      const pubkey = pubkeyToHex(request.params.pubkey)!;
      const by = request.nip98?.event.pubkey ?? 'api-key';
      if (!(await registryCall(() => host.witness.clear(pubkey, by))))
        throw new ApiError('ABX_ERR_NOT_FOUND', `the mesh host holds no witness record for ${pubkey}`);
      void reply.code(204);
    },
  );
}

/** The body of GET /v1/mesh/members (also the dashboard's mesh topic). */
export async function membersBody(host: MeshHost) {
  const members = await registryCall(() => host.members());
  return { heartbeat_interval_sec: host.heartbeatIntervalSec, members: members.map(memberView) };
}
