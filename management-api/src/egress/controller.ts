// The API's view of the egress proxy: agent credentials (hashes only), the allowlist at run time, decisions to events and metrics, reachability for /ready.
import type { Logger } from 'pino';
import { AdapterUnavailableError } from '../adapter-errors.js';
import { ApiError } from '../errors.js';
import type { EgressPolicy } from './allowlist.js';
import { ControlClient, type ControlOk } from './control-client.js';
import type { ControlAsk, CredentialEntry, PolicySource } from './control-protocol.js';
import type { Approver } from '../policy/settle.js';
import { EGRESS_REASONS, type EgressMetrics } from './metrics.js';
import type { EgressDecision, EgressPolicyDecision } from './proxy.js';
import { POLICY_EVENT_KIND } from '../policy/audit-record.js';
import { newProxyCredential, proxyEnvironment, type AgentEgress, type AgentFacts } from './agent-credential.js';
import { RefusalLog, type Refusal } from './refusal.js';

/** The event kind each decision is appended as. */
export const EGRESS_EVENT_KIND = 'sandbox.egress';

/** Refusals of a request whose credential was not accepted. */
const UNAUTHENTICATED = new Set(['no-credential', 'bad-credential']);

/** What /ready and GET /v1/sandbox/egress see. */
export interface EgressStatus {
  reachable: boolean;
  /** Why not, when unreachable. */
  reason?: string;
  socketPath: string;
}

/** The allowlist in force and where it came from. */
export interface EgressPolicyView {
  port: number;
  /** As the proxy reports it: `manifest` until a runtime change, `runtime` after one (until the API restarts). */
  source: PolicySource;
  policy: EgressPolicy;
}

/** How the controller is built. */
export interface EgressControllerOptions {
  socketPath: string;
  apiKey: string;
  logger: Logger;
  metrics: EgressMetrics;
  /** Appends one event to the events slot (rejections are counted by the slot's own metrics and ignored here). */
  appendEvent: (event: { kind: string; source: string; data: Record<string, unknown> }) => Promise<unknown>;
  timing?: ConstructorParameters<typeof ControlClient>[0]['timing'];
  /** Who decides the proxy's asks (the approvals queue, once the app has one); undefined denies them. */
  approver?: () => Approver | undefined;
}

/**
 * The proxy's controller in the API. Credentials are kept as hashes so they can be sent again
 * when the proxy restarts; a runtime allowlist is re-sent then too. Each connection starts with
 * a `sync` that replaces the proxy's whole state with the API's: after an API restart that is no
 * credential (its agents died with it) and the manifest's allowlist, so a change through the API
 * lasts until the API restarts, and the source reported is the proxy's own account of its list.
 */
export class EgressController implements AgentEgress {
  readonly #hashes = new Map<string, Omit<CredentialEntry, 'agent'>>();
  readonly #listeners: Array<() => void> = [];
  readonly #client: ControlClient;
  readonly #refusals = new RefusalLog();
  #runtime: EgressPolicy | undefined;
  #port = 0;

  constructor(private readonly options: EgressControllerOptions) {
    this.#client = new ControlClient({
      socketPath: options.socketPath,
      apiKey: options.apiKey,
      timing: options.timing,
      onConnect: async (client, reply) => this.#replay(client, reply),
      onDecision: (d) => this.#record(d),
      onAsk: (ask) => void this.#answer(ask),
      onStateChange: () => {
        options.logger[this.#client.connected ? 'info' : 'warn'](
          { event: this.#client.connected ? 'EgressProxyConnected' : 'EgressProxyDisconnected', socket: options.socketPath },
          `egress proxy control channel ${this.#client.connected ? 'up' : 'down'}`,
        );
        for (const l of this.#listeners) l();
      },
    });
  }

  /** Start connecting (in the background). */
  start(): this {
    this.#client.start();
    return this;
  }

  /** Reachability of the proxy's control channel. */
  status(): EgressStatus {
    return this.#client.connected
      ? { reachable: true, socketPath: this.options.socketPath }
      : { reachable: false, reason: this.#client.lastError, socketPath: this.options.socketPath };
  }

  /** Be told when reachability changes. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  async issue(agentId: string, facts?: AgentFacts): Promise<Record<string, string>> {
    const { secret, hash } = newProxyCredential();
    const entry = {
      hash,
      ...(facts?.name !== undefined ? { name: facts.name } : {}),
      ...(facts?.autonomy !== undefined ? { autonomy: facts.autonomy } : {}),
      ...(facts?.allowDomains?.length ? { allowDomains: [...facts.allowDomains] } : {}),
    };
    // Known before it is sent: a sync running meanwhile on the same connection then carries it
    // too, or precedes the register; either way the proxy ends up holding it.
    this.#hashes.set(agentId, entry);
    try {
      this.#port = (await this.#client.call({ op: 'register', agent: agentId, ...entry })).port;
    } catch (err) {
      this.#hashes.delete(agentId);
      throw new AdapterUnavailableError('orchestrator', `agents start only with an egress proxy credential, and ${(err as Error).message}`);
    }
    return proxyEnvironment(agentId, secret, this.#port);
  }

  revoke(agentId: string): void {
    this.#hashes.delete(agentId);
    // A proxy that is down has forgotten every credential; replay skips this one from now on.
    this.#client.call({ op: 'revoke', agent: agentId }).catch(() => undefined);
  }

  /** The allowlist the proxy enforces now. */
  async policy(): Promise<EgressPolicyView> {
    return this.#view(await this.#call({ op: 'policy-get' }));
  }

  /** Replace the allowlist (validated by the caller); applies to the next request, lasts until the API restarts. */
  async setPolicy(policy: EgressPolicy): Promise<EgressPolicyView> {
    const reply = await this.#call({ op: 'policy-set', policy });
    this.#runtime = policy;
    this.options.logger.info(
      { event: 'EgressPolicySet', allowDomains: policy.allow_domains, allowPorts: policy.allow_ports },
      'egress allowlist changed through the API',
    );
    return this.#view(reply);
  }

  /** The agent's recent refusals, newest last (GET /v1/agents/{id}). */
  refusals(agentId: string): Refusal[] {
    return this.#refusals.of(agentId);
  }

  /** Stop reconnecting and close the channel. */
  close(): void {
    this.#client.close();
  }

  async #call(request: Parameters<ControlClient['call']>[0]): Promise<ControlOk> {
    try {
      return await this.#client.call(request);
    } catch (err) {
      throw new ApiError('ABX_ERR_EGRESS_UNAVAILABLE', (err as Error).message);
    }
  }

  /** The port the proxy listens on, once it has answered (it may differ from sandbox.egress.port: AGENTBOX_EGRESS_PORT). */
  get port(): number | undefined {
    return this.#port || undefined;
  }

  #view(reply: ControlOk): EgressPolicyView {
    return { port: reply.port, source: reply.source, policy: reply.policy };
  }

  async #replay(client: ControlClient, reply: ControlOk): Promise<void> {
    this.#port = reply.port;
    const credentials = [...this.#hashes].map(([agent, entry]) => ({ agent, ...entry }));
    await client.call({ op: 'sync', credentials, policy: this.#runtime ?? null });
  }

  /** Hand the proxy's ask to the approver and send its answer back (a channel down by then leaves the proxy to deny it). */
  async #answer(ask: ControlAsk['ask']): Promise<void> {
    const approver = this.options.approver?.();
    let answer: { approved: boolean; reason: string };
    try {
      answer = approver ? await approver.hold(ask.decision, ask.action, { agentId: ask.agent }) : { approved: false, reason: 'no approver reachable' };
    } catch (err) {
      answer = { approved: false, reason: `the approver failed: ${(err as Error).message}` };
    }
    await this.#client.call({ op: 'answer', ref: ask.ref, ...answer }).catch(() => undefined);
  }

  #record(d: EgressDecision): void {
    // A refused credential only claims its agent id (any local process may write one): such a
    // refusal is an event, never on the record of the agent it names.
    if (d.decision === 'denied' && d.agent !== null && !UNAUTHENTICATED.has(d.reason))
      this.#refusals.add(d.agent, { host: d.host, port: d.port, reason: d.reason });
    this.options.metrics.decisions.inc({
      decision: d.decision === 'allowed' ? 'allowed' : 'denied',
      reason: EGRESS_REASONS.has(d.reason) ? d.reason : 'other',
    });
    const policy = d.policy ? { policy: { rule: d.policy.rule, decision: d.policy.decision, version: d.policy.version } } : {};
    const data = { agent: d.agent, host: d.host, port: d.port, method: d.method, decision: d.decision, reason: d.reason, ...policy };
    const notRecorded = (err: unknown): void => {
      this.options.logger.debug({ event: 'EgressEventNotRecorded', err }, 'an egress decision could not be appended to the events slot');
    };
    this.options.appendEvent({ kind: EGRESS_EVENT_KIND, source: 'egress', data }).catch(notRecorded);
    // A refusal (or an ask) by [policy] is also a policy decision on record, as spawns and provider calls are.
    if (d.policy && d.decision === 'denied')
      this.options.appendEvent({ kind: POLICY_EVENT_KIND, source: 'egress', data: egressPolicyEventData(d, d.policy) }).catch(notRecorded);
  }
}

/** The `policy.decision` event of an egress request refused by [policy] (policy/audit-record.ts has the same fields). */
function egressPolicyEventData(d: EgressDecision, p: EgressPolicyDecision): Record<string, unknown> {
  const subject = { host: d.host, port: d.port, ...(p.method !== undefined ? { method: p.method, path: p.path } : {}) };
  return {
    action: 'egress',
    subject,
    agent: d.agent,
    rule: p.rule,
    decision: p.decision,
    outcome: d.decision,
    autonomy: p.autonomy,
    reason: p.reason,
    policy: p.version,
  };
}
