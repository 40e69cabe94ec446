// The provider broker: /v1/providers/<name>/* forwarded to the provider's base_url with the real key in place of the agent's token.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyReplyFrom from '@fastify/reply-from';
import { ApiError } from '../errors.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { policyOf } from '../policy/compiled-cache.js';
import { enforce } from '../policy/gate.js';
import type { BrokeredProvider } from '../manifest/rules/helpers/providers.js';
import { readSecret } from '../secrets/read-secret.js';
import { brokerPath } from './agent-credentials.js';
import { brokerTarget } from './broker-path.js';
import type { CredentialMetrics } from './metrics.js';
import type {} from '../app-state.js';
import type { Actor } from '../auth/caller.js';

/** Timeouts of brokered calls. */
export interface BrokerTiming {
  /** Establishing the TCP (and TLS) connection to the provider. */
  connectTimeoutMs: number;
  /** Until the provider's response headers: a long completion without streaming takes minutes. */
  headersTimeoutMs: number;
  /** The longest silence between two chunks of a response body (a stream of tokens keeps talking). */
  bodyTimeoutMs: number;
}

/** Defaults: 10 s to connect, 10 min to the headers, 5 min of silence in a body. */
export const DEFAULT_BROKER_TIMING: BrokerTiming = { connectTimeoutMs: 10_000, headersTimeoutMs: 600_000, bodyTimeoutMs: 300_000 };

/** What the broker is built from. */
export interface BrokerOptions {
  providers: readonly BrokeredProvider[];
  /** The API's environment, where each provider's `env_var` is read (on every call, so a rotated key is used at once). */
  env: Readonly<Record<string, string | undefined>>;
  metrics: CredentialMetrics;
  /** Requests per window per client address. */
  rateLimit: { max: number; timeWindow: number };
  timing?: Partial<BrokerTiming>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and the agent's own credential never travel on; the proxy
// sets host itself.
const DROPPED_REQUEST_HEADERS = [
  'authorization',
  'x-api-key',
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];
const DROPPED_RESPONSE_HEADERS = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'trailer', 'transfer-encoding', 'upgrade'];

/**
 * Register the broker's routes (none when no provider has a base_url). Bodies stream both ways:
 * the request body is handed to the upstream request as it arrives, the response (SSE included)
 * is piped back as it comes. The real key replaces the agent's token in the header the agent used
 * (`x-api-key` for Anthropic-style clients, `Authorization: Bearer` otherwise); the token itself
 * and the key are never logged.
 */
export async function registerProviderBroker(app: FastifyInstance, options: BrokerOptions): Promise<void> {
  if (options.providers.length === 0) return;
  const timing = { ...DEFAULT_BROKER_TIMING, ...options.timing };
  await app.register(async (scope) => {
    await scope.register(fastifyReplyFrom, {
      disableRequestLogging: true,
      destroyAgent: true,
      // reply-from turns certificate checks off (tls.rejectUnauthorized = false) unless told otherwise;
      // undici applies `connect` last, so this turns them back on: the key goes only to the real provider.
      undici: {
        headersTimeout: timing.headersTimeoutMs,
        bodyTimeout: timing.bodyTimeoutMs,
        connect: { timeout: timing.connectTimeoutMs, rejectUnauthorized: true },
      },
    });
    scope.removeAllContentTypeParsers();
    // Any body, unread: it streams to the provider. A NIP-98 request is the exception: its token
    // signs the body's hash, which is checked before the handler runs, so its body (within the
    // API's body limit) is read first and then forwarded from memory.
    const nip98BodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
    scope.addContentTypeParser('*', (request, payload, done) => {
      // Handed on as a stream again: reply-from would re-encode a JSON body it was given parsed.
      if (request.nip98)
        readWhole(payload, nip98BodyLimit).then(
          (body) => done(null, Readable.from([body], { objectMode: false })),
          (err: Error) => done(err, undefined),
        );
      else done(null, payload);
    });
    for (const provider of options.providers) {
      scope.all(
        `${brokerPath(provider.name)}/*`,
        { config: { agent: 'allow', agentKeyHeader: true, rateLimit: options.rateLimit }, schema: { hide: true } },
        (request, reply) => forward(provider, options, request, reply),
      );
    }
  });
}

async function forward(provider: BrokeredProvider, options: BrokerOptions, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { metrics } = options;
  const labels = { provider: provider.name };
  // Refused before the key is even read: a path that could leave base_url never gets it.
  let target: string;
  try {
    target = targetUrl(provider, request.url);
  } catch (err) {
    metrics.providerRequests.inc({ ...labels, outcome: 'refused' });
    throw err;
  }
  // An agent started from a profile calls only the providers the profile names, whatever URL it builds.
  const allowed = request.agent?.providers;
  if (allowed && !allowed.includes(provider.name)) {
    metrics.providerRequests.inc({ ...labels, outcome: 'refused' });
    throw new ApiError(
      'ABX_ERR_AGENT_SCOPE',
      `this agent's profile does not name provider ${provider.name} (agents.profiles.<name>.providers lists what it may call: ${allowed.join(', ') || 'none'})`,
    );
  }
  // [policy] after the provider configuration (only declared providers have a route), before the key is read.
  await enforceProviderPolicy(provider, request).catch((err: unknown) => {
    metrics.providerRequests.inc({ ...labels, outcome: 'refused' });
    throw err;
  });
  const key = await readSecret({
    env: { key: `providers.${provider.name}.env_var`, name: provider.envVar, values: options.env },
    file: { key: '', path: '' },
    shape: 'token',
  }).catch(() => undefined);
  if (!key) {
    metrics.providerRequests.inc({ ...labels, outcome: 'no-key' });
    throw new ApiError(
      'ABX_ERR_PROVIDER_KEY_MISSING',
      `providers.${provider.name}.env_var names ${provider.envVar || '(nothing)'}, which is not set or empty where the API runs`,
    );
  }
  const useApiKeyHeader = request.headers.authorization === undefined && request.headers['x-api-key'] !== undefined;
  const started = performance.now();
  return reply.from(target, {
    retryDelay: () => null,
    rewriteRequestHeaders: (_request, headers) => {
      const out: Record<string, string | string[] | undefined> = { ...headers };
      for (const name of DROPPED_REQUEST_HEADERS) delete out[name];
      if (useApiKeyHeader) out['x-api-key'] = key;
      else out['authorization'] = `Bearer ${key}`;
      return out;
    },
    rewriteHeaders: (headers) => {
      const out = { ...headers };
      const listed = typeof headers['connection'] === 'string' ? headers['connection'].split(',').map((h) => h.trim().toLowerCase()) : [];
      for (const name of [...DROPPED_RESPONSE_HEADERS, ...listed]) delete out[name];
      return out;
    },
    onResponse: (_request, res, upstream) => {
      metrics.providerLatency.observe(labels, (performance.now() - started) / 1000);
      metrics.providerRequests.inc({ ...labels, outcome: `${Math.floor(upstream.statusCode / 100)}xx` });
      // Written by hand so the headers leave at once: Node holds them back until the first body
      // byte, and a model may think for a long while before its first streamed token.
      res.hijack();
      res.raw.writeHead(res.statusCode, res.getHeaders() as OutgoingHttpHeaders);
      (res.raw as ServerResponse).flushHeaders();
      pipeline(upstream.stream, res.raw, (err) => {
        if (err && !res.raw.writableFinished)
          request.log.info(
            { event: 'ProviderStreamEnded', provider: provider.name, reason: (err as NodeJS.ErrnoException).code ?? err.name },
            'a brokered response ended early',
          );
      });
    },
    onError: (res, { error }) => {
      const code = (error as { code?: string }).code ?? '';
      const timedOut = code === 'FST_REPLY_FROM_GATEWAY_TIMEOUT';
      metrics.providerRequests.inc({ ...labels, outcome: timedOut ? 'timeout' : 'unreachable' });
      const origin = new URL(provider.baseUrl).origin;
      const failure = timedOut
        ? new ApiError(
            'ABX_ERR_PROVIDER_TIMEOUT',
            `provider ${provider.name} (${origin}) sent no response headers within ${options.timing?.headersTimeoutMs ?? DEFAULT_BROKER_TIMING.headersTimeoutMs} ms`,
          )
        : new ApiError('ABX_ERR_PROVIDER_UNREACHABLE', `provider ${provider.name} (${origin}) cannot be reached: ${describe(error)}`);
      void res.send(failure);
    },
  });
}

/**
 * Whether [policy] lets this caller use `provider`: an agent by its name and the autonomy its
 * spawn set, an operator with the policy's default autonomy. A refusal is recorded as a
 * `policy.decision` event and answered with ABX_ERR_POLICY_DENIED naming the rule; allowed calls
 * are not recorded one by one (the broker's metrics count them).
 */
async function enforceProviderPolicy(provider: BrokeredProvider, request: FastifyRequest): Promise<void> {
  const { manifest, audit, approvals } = request.server.agentbox;
  const agent = request.agent;
  await enforce(
    policyOf(manifest.policy),
    { kind: 'provider', provider: provider.name, ...(agent ? { agent: agent.name } : {}) },
    {
      agent: agent?.id ?? null,
      ...(agent?.autonomy ? { autonomy: agent.autonomy } : {}),
      recordAllowed: false,
      record: (data) => audit.action(brokerCaller(request), AUDIT_KINDS.policyDecision, 'broker', data),
      // A supervised caller's ask holds this request open until decided or timed out.
      approver: approvals.queue,
    },
  );
}

/** Who called the broker, as auth/caller.ts callerOf names it (that file sits floors above this one). */
function brokerCaller(request: FastifyRequest): Actor {
  if (request.agent) return { kind: 'agent', agent: request.agent.id, name: request.agent.name };
  if (request.nip98) return { kind: 'nip98', pubkey: request.nip98.event.pubkey };
  if (request.dashboardSession) return { kind: 'session', via: request.dashboardSession };
  return { kind: 'api-key' };
}

/** The provider URL for a broker request: base_url + whatever follows /v1/providers/<name>, query included, as sent (see broker-path.ts). */
export function targetUrl(provider: Pick<BrokeredProvider, 'name' | 'baseUrl'>, requestUrl: string): string {
  const prefix = brokerPath(provider.name);
  // The route is `<prefix>/*`; anything else reaching here would make the slice below meaningless.
  if (!requestUrl.startsWith(`${prefix}/`)) throw new ApiError('ABX_ERR_PROVIDER_PATH', `the broker forwards only paths under ${prefix}/`);
  return brokerTarget(provider.baseUrl, requestUrl.slice(prefix.length));
}

// The cause chain of an undici error names what failed (ECONNREFUSED, ENOTFOUND, a certificate error).
function describe(error: Error): string {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code = (e as { code?: string }).code;
    if (code && !code.startsWith('FST_')) return code;
    e = e.cause;
  }
  return error.message;
}

/** The whole of `stream`, or a 413 once it passes `limit` bytes. */
async function readWhole(stream: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += chunk.length;
    if (length > limit)
      throw new ApiError(
        'ABX_ERR_BODY_TOO_LARGE',
        `a NIP-98 signed request to the provider broker may carry at most ${limit} bytes (its body is hashed before it is forwarded); authenticate with the API key or an agent token to stream a larger one`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}
