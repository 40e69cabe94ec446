// A mesh member made of signed HTTP calls (a real key, real NIP-98 tokens), for driving a host's member routes in tests.
import { generateSecretKey, finalizeEvent, type EventTemplate } from 'nostr-tools/pure';
import { BoxIdentity } from '../../../management-api/src/mesh/identity.js';
import { nip98Header, payloadHash } from '../../../management-api/src/mesh/nip98.js';

/** A registration body for `identity`. */
export function registrationBody(identity: BoxIdentity, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    pubkey: identity.pubkey,
    image_hash: 'sha256:test-image',
    manifest_sha256: 'a'.repeat(64),
    adapters: { beads: 'off', orchestrator: 'off' },
    contract_versions: { beads: '1.0.0', orchestrator: '1.0.0' },
    api_endpoint: 'http://127.0.0.1:1/',
    capacity: { agents_running: 2, free_memory_bytes: 1024 },
    ...extra,
  };
}

/** A heartbeat body. */
export function beatBody(agents = 1): Record<string, unknown> {
  return { health: { ready: true, status: 'ok', slots: { beads: 'off' } }, capacity: { agents_running: agents, free_memory_bytes: 2048 } };
}

/** The answer of a call. */
export interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** Send `method url` with `authorization` and the exact `body` text. */
export async function send(method: string, url: string, authorization: string | undefined, body?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (authorization) headers['authorization'] = authorization;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A member box: its key and properly signed calls. */
export class TestMember {
  readonly secret: Uint8Array;
  readonly identity: BoxIdentity;
  constructor(secret: Uint8Array = generateSecretKey()) {
    this.secret = secret;
    this.identity = new BoxIdentity(secret);
  }

  /** A signed call with `body` (an object, sent as JSON). */
  async call(method: 'POST' | 'DELETE', url: string, body?: unknown): Promise<Answer> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return send(method, url, await nip98Header(this.identity, url, method, text), text);
  }

  /** A NIP-98 header built by hand so a test can spoil one part (`edit` runs before signing). */
  token(url: string, method: string, body: string | undefined, edit: (e: EventTemplate) => void = () => {}): string {
    const template: EventTemplate = {
      kind: 27235,
      created_at: Math.floor(Date.now() / 1000),
      content: '',
      tags: [
        ['u', url],
        ['method', method],
      ],
    };
    if (body !== undefined) template.tags.push(['payload', payloadHash(body)]);
    edit(template);
    return `Nostr ${Buffer.from(JSON.stringify(finalizeEvent(template, this.secret))).toString('base64')}`;
  }

  /** POST /v1/register at `base`. */
  register(base: string, extra: Record<string, unknown> = {}): Promise<Answer> {
    return this.call('POST', `${base}/v1/register`, registrationBody(this.identity, extra));
  }
}
