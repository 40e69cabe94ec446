// The egress proxy's HTTP side: CONNECT tunnels and absolute-form plain HTTP, each authenticated per agent and decided against the allowlist.
//
// Built on node:http and node:net rather than a proxy library. `proxy` (the maintained forward
// proxy on npm) connects to the request's host name itself, so the address the policy checked
// and the address it connects to can differ (DNS rebinding), and it can refuse a request only as
// 407 or as a 500 carrying a stack trace. `http-proxy` and `@fastify/http-proxy` are reverse
// proxies to a configured upstream and do not handle CONNECT. What is left here is small: parse
// the target, decide, connect to the checked address, relay (tunnel.ts).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { Allowlist } from './allowlist.js';
import type { CredentialStore } from './credential-store.js';
import { decide, systemResolver, type Resolver } from './decision.js';
import { openTunnel, type TunnelRelay } from './tunnel.js';
import { AgentConnections, HEADERS_TIMEOUT_MS, MAX_CONNECTIONS } from './connection-caps.js';
import { refusalBody, refusalHeader } from './refusal.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { evaluate } from '../policy/evaluate.js';
import { settle, type Approver } from '../policy/settle.js';
import type { DecidingRule, EgressAction, Verdict, Autonomy } from '../policy/policy-types.js';

/** One decision, as the API records it (an event and a metric). */
export interface EgressDecision {
  /** The agent, or the id a refused credential claimed (null when none was readable). */
  agent: string | null;
  host: string;
  port: number;
  method: 'CONNECT' | 'HTTP';
  decision: 'allowed' | 'denied';
  /** Bounded: how the host matched, or why it was refused (`policy-denied`: by [policy]). */
  reason: string;
  /** When [policy] has rules: the decision it gave (a refusal by it, or what let the request through). */
  policy?: EgressPolicyDecision;
}

/** What [policy] said of one egress request. */
export interface EgressPolicyDecision {
  rule: DecidingRule | null;
  decision: Verdict;
  /** The outcome's reason, naming the rule (`rule 3 ("push") asks for approval; this agent is autonomous`). */
  reason: string;
  version: string;
  autonomy: Autonomy;
  /** Plain HTTP only: what the rules saw besides host and port. */
  method?: string;
  path?: string;
}

/** What the proxy consults on every request. */
export interface EgressProxyOptions {
  credentials: CredentialStore;
  /** The current allowlist (read per request, so a change applies to the next request). */
  allowlist: () => Allowlist;
  onDecision: (decision: EgressDecision) => void;
  resolve?: Resolver;
  /** How CONNECT tunnels move bytes (default: one reused read buffer per tunnel). */
  relay?: TunnelRelay;
  /** Connections one agent may hold at once (default MAX_CONNECTIONS_PER_AGENT). */
  maxPerAgent?: number;
  /** The manifest's [policy], asked after the allowlist admitted a request (none: the allowlist alone decides). */
  policy?: CompiledPolicy;
  /** Who a supervised agent's ask goes to (the API's approvals queue over the control channel); none denies. */
  approver?: Approver;
}

// Hop-by-hop headers (RFC 9110 7.6.1) and the proxy credential never travel upstream.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
const MAX_HOST = 255;

/** Build the proxy server (not yet listening). */
export function createEgressProxy(options: EgressProxyOptions): http.Server {
  const resolve = options.resolve ?? systemResolver;
  const relay = options.relay ?? 'buffer';
  const server = http.createServer();
  // One agent's flood of connections must not take the proxy (its descriptors) from the others:
  // a ceiling on all, a per-agent count once a request names its agent, and a deadline for the
  // first request's head on a connection that never sends one.
  server.maxConnections = MAX_CONNECTIONS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  const connections = new AgentConnections(options.maxPerAgent);

  /** Authenticate and decide; answers a refusal itself and returns undefined then. `http`: a plain HTTP request's method and path. */
  async function admit(
    req: http.IncomingMessage,
    host: string,
    port: number,
    method: EgressDecision['method'],
    refuse: (status: number, reason: string, detail?: string) => void,
    http?: { method: string; path: string },
  ): Promise<string | undefined> {
    const shownHost = host.slice(0, MAX_HOST);
    const who = options.credentials.check(req.headers['proxy-authorization']);
    if (!who.ok) {
      options.onDecision({ agent: who.agent ?? null, host: shownHost, port, method, decision: 'denied', reason: who.reason });
      refuse(407, who.reason);
      return undefined;
    }
    if (!connections.admit(who.agent, req.socket)) {
      options.onDecision({ agent: who.agent, host: shownHost, port, method, decision: 'denied', reason: 'too-many-connections' });
      refuse(429, 'too-many-connections');
      return undefined;
    }
    const boxList = options.allowlist();
    let verdict = await decide(boxList, host, port, resolve);
    // The agent's own extra entries (its profile's), registered by the API with its credential, are
    // asked only about a host the box's list does not name, and with the box's ports: they add
    // names, never ports, and never undo a refusal of an address the box's list named.
    if (!verdict.allowed && verdict.reason === 'domain-not-listed' && who.allowDomains?.length)
      verdict = await decide(new Allowlist({ allow_domains: [...who.allowDomains], allow_ports: boxList.policy.allow_ports }), host, port, resolve);
    if (!verdict.allowed) {
      options.onDecision({ agent: who.agent, host: shownHost, port, method, decision: 'denied', reason: verdict.reason });
      refuse(403, verdict.reason);
      return undefined;
    }
    // The policy is a gate behind the allowlist, never a widening: asked only about what it admitted.
    // An ask of a supervised agent holds this request (the agent's socket stays open) until the API's queue decides.
    const policy = options.policy
      ? await decidePolicy(
          options.policy,
          { kind: 'egress', ...(who.name !== undefined ? { agent: who.name } : {}), host, port, ...http },
          who.autonomy,
          options.approver,
          who.agent,
        )
      : undefined;
    if (policy && !policy.allowed) {
      options.onDecision({ agent: who.agent, host: shownHost, port, method, decision: 'denied', reason: 'policy-denied', policy: policy.record });
      refuse(403, 'policy-denied', policy.record.reason);
      return undefined;
    }
    options.onDecision({
      agent: who.agent,
      host: shownHost,
      port,
      method,
      decision: 'allowed',
      reason: verdict.reason,
      ...(policy?.record ? { policy: policy.record } : {}),
    });
    return verdict.address;
  }

  server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const target = parseAuthority(req.url ?? '');
    const refuse = (status: number, reason: string, detail?: string): void => void socket.end(statusLine(status, reason, target, detail));
    if (!target) return refuse(400, 'bad-target');
    void admit(req, target.host, target.port, 'CONNECT', refuse).then((address) => {
      if (address === undefined || socket.destroyed) return;
      openTunnel(
        socket,
        address,
        target.port,
        head,
        { onConnect: () => void socket.write('HTTP/1.1 200 Connection established\r\n\r\n'), onConnectFailed: () => refuse(502, 'connect-failed') },
        relay,
      );
    });
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    let refused: { host: string; port: number } | undefined;
    const refuse = (status: number, reason: string, detail?: string): void => {
      if (status === 407) res.setHeader('proxy-authenticate', 'Basic realm="agentbox-egress"');
      const named = refused && status !== 502 ? refused : undefined;
      if (named) res.setHeader('x-agentbox-refusal', refusalHeader(named.host, named.port, reason, detail));
      res
        .writeHead(status, { 'content-type': 'text/plain', 'x-agentbox-egress': reason })
        .end(named ? refusalBody(named.host, named.port, reason, detail) : `egress ${status === 407 ? 'needs a proxy credential' : 'refused'}: ${reason}\n`);
    };
    const target = absoluteTarget(req);
    if (typeof target === 'string') return refuse(400, target);
    const { url, port } = target;
    refused = { host: url.hostname, port };
    void admit(req, url.hostname, port, 'HTTP', refuse, { method: req.method ?? 'GET', path: url.pathname }).then((address) => {
      if (address === undefined) return;
      const headers: http.OutgoingHttpHeaders = {};
      const listed = new Set(
        String(req.headers['connection'] ?? '')
          .split(',')
          .map((h) => h.trim().toLowerCase()),
      );
      for (const [name, value] of Object.entries(req.headers))
        if (!HOP_BY_HOP.has(name) && !listed.has(name) && name !== 'host' && value !== undefined) headers[name] = value;
      // RFC 9112 3.2.2: a proxy replaces the Host it received by the request target's. The agent's
      // own Host would name, to a server that routes by name, a host the policy never checked.
      headers['host'] = url.host;
      const upstream = http.request({ host: address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false }, (up) => {
        const back: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) back[name] = value;
        res.writeHead(up.statusCode ?? 502, back);
        up.pipe(res);
      });
      upstream.once('error', () => (res.headersSent ? res.destroy() : refuse(502, 'connect-failed')));
      res.once('close', () => upstream.destroy());
      req.pipe(upstream);
    });
  });
  return server;
}

/**
 * [policy] on an egress request the allowlist admitted. An ask settles by the agent's autonomy
 * (registered with its credential; the policy's default otherwise). `record` is absent for an
 * allow by the default of a policy without rules: nothing to name, and allowed requests are many.
 */
async function decidePolicy(
  policy: CompiledPolicy,
  action: EgressAction,
  autonomy: Autonomy | undefined,
  approver: Approver | undefined,
  agentId: string,
): Promise<{ allowed: true; record?: EgressPolicyDecision } | { allowed: false; record: EgressPolicyDecision }> {
  const decision = evaluate(policy, action);
  if (decision.decision === 'allow' && decision.rule === null && policy.rules.length === 0) return { allowed: true };
  const outcome = await settle(decision, action, autonomy ?? policy.autonomy, approver, { agentId });
  const http = action.method !== undefined ? { method: action.method.slice(0, 16), path: (action.path ?? '').slice(0, 512) } : {};
  const record: EgressPolicyDecision = {
    rule: decision.rule,
    decision: decision.decision,
    reason: outcome.reason,
    version: decision.version,
    autonomy: outcome.autonomy,
    ...http,
  };
  return outcome.allowed ? { allowed: true, record } : { allowed: false, record };
}

/**
 * The target of a plain HTTP request, or the refusal reason. Only absolute form is proxied: an
 * origin-form request (`GET /path` with a Host header) would make Host the target, and Host is
 * the agent's to write. Exactly one Host header is accepted (RFC 9112 3.2), and the target must
 * be written `http://authority/…` as sent, not in a shape the URL parser repairs (`http:host`,
 * backslashes), nor carry a user name (a second name before `@`).
 */
export function absoluteTarget(
  req: Pick<http.IncomingMessage, 'url' | 'rawHeaders'>,
): { url: URL; port: number } | 'not-absolute-form' | 'only-http' | 'duplicate-host' | 'bad-target' {
  const raw = req.url ?? '';
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return 'duplicate-host';
  if (!/^[a-z][a-z0-9+.-]*:/i.test(raw)) return 'not-absolute-form';
  if (!/^http:/i.test(raw)) return 'only-http';
  if (!/^http:\/\//i.test(raw)) return 'bad-target';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'bad-target';
  }
  const authority = raw.slice('http://'.length).split(/[/?#]/, 1)[0]!;
  if (url.username !== '' || url.password !== '' || authority.includes('@') || authority.includes('\\') || url.hostname === '') return 'bad-target';
  return { url, port: url.port === '' ? 80 : Number(url.port) };
}

/** `host:port` of a CONNECT request (IPv6 in brackets), or undefined when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

/**
 * The answer to a refused CONNECT. A refusal of a parsed target names it in `X-Agentbox-Refusal`
 * and in the body (the host, the port, the rule, the key that would allow it): an HTTPS client
 * shows little more than the status, but the agent can read the header or the body with
 * `curl -v`, and so can a person reading its log. A failed upstream connection (502) is not a
 * refusal by a rule and names none.
 */
function statusLine(status: number, reason: string, target?: { host: string; port: number }, detail?: string): string {
  const text = http.STATUS_CODES[status] ?? 'Error';
  const auth = status === 407 ? 'Proxy-Authenticate: Basic realm="agentbox-egress"\r\n' : '';
  const named = target && status !== 502 ? target : undefined;
  const refusal = named ? `X-Agentbox-Refusal: ${refusalHeader(named.host, named.port, reason, detail)}\r\n` : '';
  const body = named ? refusalBody(named.host, named.port, reason, detail) : `egress ${status === 407 ? 'needs a proxy credential' : 'refused'}: ${reason}\n`;
  return `HTTP/1.1 ${status} ${text}\r\n${auth}X-Agentbox-Egress: ${reason}\r\n${refusal}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
