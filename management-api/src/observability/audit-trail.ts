// The audit trail: who started, ended and changed what, appended through the events slot (hash-chained like every event).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Counter } from 'prom-client';
import type { Logger } from 'pino';
import type { NewEvent } from '../adapters/events/events-adapter.js';
import type { Actor } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { POLICY_EVENT_KIND } from '../policy/audit-record.js';
import type { AgentAuditHooks, AgentEndFacts, AgentStartFacts } from '../sandbox/agent-audit-hooks.js';

/** The kinds the box appends on its own (docs/user/api.md, "The audit trail"). */
export const AUDIT_KINDS = {
  agentSpawn: 'agent.spawn',
  agentTerminate: 'agent.terminate',
  agentExit: 'agent.exit',
  beadOpen: 'bead.open',
  beadClaimed: 'bead.claimed',
  beadClosed: 'bead.closed',
  egressPolicy: 'sandbox.egress.policy',
  /** A [policy] decision: every spawn and egress-change decision, every refused provider call (policy/audit-record.ts). */
  policyDecision: POLICY_EVENT_KIND,
  /** A supervised agent's ask held for an operator, and how it ended (approvals/queue.ts). */
  approvalRequested: 'approval.requested',
  approvalDecided: 'approval.decided',
  /** An agent waiting for a person, and how its wait ended (input-requests/queue.ts). */
  inputRequested: 'agent.input_requested',
  inputAnswered: 'agent.input_answered',
  inputWithdrawn: 'agent.input_withdrawn',
  /** Workspace snapshots: made, deleted, restored into an agent's directory, forked into a new agent (snapshots/). */
  snapshotCreated: 'snapshot.created',
  snapshotDeleted: 'snapshot.deleted',
  snapshotRestored: 'snapshot.restored',
  snapshotForked: 'snapshot.forked',
  /** Warm forks of a snapshot asked for, or no more (PUT /v1/snapshots/{sid}/warm). */
  snapshotWarm: 'snapshot.warm',
} as const;

/** One of {@link AUDIT_KINDS}. */
export type AuditKind = (typeof AUDIT_KINDS)[keyof typeof AUDIT_KINDS];

/** How the trail is built. */
export interface AuditTrailOptions {
  /** Appends through the events slot (dispatched: measured, refused while degraded). */
  append(events: NewEvent[]): Promise<unknown>;
  /** `events` is in `adapters.critical`: the box must not act without its record. */
  critical: boolean;
  /** Whether the events slot can take appends now (healthy or connecting, not degraded). */
  usable(): boolean;
  logger: Logger;
  /** `agentbox_audit_events_failed_total`, by kind. */
  failures: Counter<'kind'>;
}

/**
 * Records actions with the caller who asked for them. A record that cannot be written never
 * undoes or fails an action already taken: it is logged (`AuditEventNotRecorded`) and counted.
 * When `events` is critical, actions are refused up front while the slot cannot take appends
 * ({@link admit}), and a caller's answer waits for its record.
 */
export class AuditTrail {
  readonly #actor = new AsyncLocalStorage<Actor>();
  /** Critical only: whether each just-spawned agent's record was written, until its spawn answers. */
  readonly #spawns = new Map<string, Promise<boolean>>();
  /** Records asked for and not yet written. */
  readonly #pending = new Set<Promise<boolean>>();

  constructor(private readonly options: AuditTrailOptions) {}

  /** Whether actions wait for (and depend on) their records. */
  get critical(): boolean {
    return this.options.critical;
  }

  /** Run `fn` on behalf of `actor`: what the orchestrator records meanwhile names it. */
  as<T>(actor: Actor, fn: () => T): T {
    return this.#actor.run(actor, fn);
  }

  /** Refuse `action` (503 ABX_ERR_AUDIT_UNAVAILABLE) when events is critical and cannot be appended to now. */
  admit(action: string): void {
    if (this.options.critical && !this.options.usable()) {
      throw new ApiError(
        'ABX_ERR_AUDIT_UNAVAILABLE',
        `${action} refused: the events slot is in adapters.critical (no action without an audit trail) and cannot record it now; see /health for the slot's reason`,
      );
    }
  }

  /** Append one event; true once durable, false when it could not be written (logged and counted). Never rejects. */
  record(kind: AuditKind, source: string, data: Record<string, unknown>): Promise<boolean> {
    const written = this.#write(kind, source, data);
    this.#pending.add(written);
    void written.finally(() => this.#pending.delete(written));
    return written;
  }

  /** Once every record asked for so far is written (or given up): the box's close waits for this before the events slot closes. */
  async settled(): Promise<void> {
    // Records asked for while waiting (an exit after a terminate) are waited for too.
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async #write(kind: AuditKind, source: string, data: Record<string, unknown>): Promise<boolean> {
    try {
      await this.options.append([{ kind, source, data }]);
      return true;
    } catch (err) {
      this.options.failures.inc({ kind });
      this.options.logger.error({ event: 'AuditEventNotRecorded', kind, err }, `the ${kind} event could not be appended to the events slot; the action stands`);
      return false;
    }
  }

  /** Record a caller's action; resolves once durable when events is critical, at once otherwise. */
  async action(actor: Actor, kind: AuditKind, source: string, data: Record<string, unknown>): Promise<void> {
    const written = this.record(kind, source, { ...data, by: actor });
    if (this.options.critical) await written;
  }

  /** Critical: whether the spawn record of agent `id` was written (true at once otherwise). Asked once per spawn. */
  async spawnRecorded(id: string): Promise<boolean> {
    const written = this.#spawns.get(id);
    this.#spawns.delete(id);
    return written ?? true;
  }

  /** The orchestrator's hooks: each call appends at once, so the log keeps the order things happened in. */
  agentHooks(): AgentAuditHooks {
    return {
      started: (agent) => {
        const written = this.record(AUDIT_KINDS.agentSpawn, 'orchestrator', { ...spawnData(agent), by: this.#caller() });
        if (this.options.critical) this.#spawns.set(agent.id, written);
      },
      terminating: (agent, by) =>
        void this.record(AUDIT_KINDS.agentTerminate, 'orchestrator', { agent: agent.id, name: agent.name, graceMs: agent.graceMs, by: by ?? this.#caller() }),
      ended: (agent) => void this.record(AUDIT_KINDS.agentExit, 'orchestrator', exitData(agent)),
    };
  }

  /** Whoever the current request runs as; `box` when no request asked (nothing else calls the orchestrator). */
  #caller(): Actor {
    return this.#actor.getStore() ?? { kind: 'box', reason: 'internal' };
  }
}

function spawnData(a: AgentStartFacts): Record<string, unknown> {
  return {
    agent: a.id,
    name: a.name,
    command: a.command,
    args: [...a.args],
    cwd: a.cwd,
    envNames: [...a.envNames],
    limits: a.limits,
    sandbox: a.sandbox,
    pid: a.pid,
    startedAt: a.startedAt,
  };
}

function exitData(a: AgentEndFacts): Record<string, unknown> {
  const durationMs = Math.max(0, Date.parse(a.endedAt) - Date.parse(a.startedAt));
  const usage = a.usage ? { ...a.usage, ...(a.peakPssBytes !== undefined ? { peak_pss_bytes: a.peakPssBytes } : {}) } : undefined;
  return {
    agent: a.id,
    name: a.name,
    state: a.state,
    reason: a.reason,
    ...(a.exitCode !== undefined ? { exitCode: a.exitCode } : {}),
    ...(a.signal !== undefined ? { signal: a.signal } : {}),
    startedAt: a.startedAt,
    endedAt: a.endedAt,
    durationMs,
    ...(usage ? { usage } : {}),
    ...(a.limits ? { limits: a.limits } : {}),
  };
}
