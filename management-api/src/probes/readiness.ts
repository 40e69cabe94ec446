// The live readiness model: READY ⇄ UNREADY from seal, mounts, critical slots and (while agent events
// are published) a reachable relay, answered from memory.
import type { Logger } from 'pino';
import { isSlotUsable } from '../adapters/slot-state.js';
import type { SlotStatus } from '../adapters/slot-supervisor.js';
import type { RelayStatus } from '../mesh/relay-publisher.js';
import type { ApiMetrics } from '../api-metrics.js';
import type { EgressStatus } from '../egress/controller.js';
import { describeLow, type DiskState } from './disk-guard.js';
import type { MountState } from './mount-checker.js';

/** Everything readiness depends on. */
export interface ReadinessInputs {
  sealFile: string;
  sealPresent: boolean;
  /** Why the seal is not coming: stage B failed (until the box restarts) or the seal timed out (until it comes). */
  bootstrapFailure?: string;
  mounts: readonly MountState[];
  slots: readonly SlotStatus[];
  /** Relays agent events are published to; present only while publishing is on (then one must be reachable). */
  relays?: RelayStatus;
  /** The egress proxy's control channel; present only when the box runs one (then it must answer). */
  egress?: EgressStatus;
  /** Free space on the state volume and the workspace (disk-guard.ts); each must stay above resources.min_free_disk. */
  disks?: readonly DiskState[];
}

/** The /ready answer, serialised once per change so each request only sends bytes. */
export interface ReadyResponse {
  status: 200 | 503;
  body: string;
}

/**
 * Recomputed whenever an input changes (never per request). Each flip is logged as
 * `ReadinessChanged` and mirrored in the `agentbox_ready` gauge.
 */
export class Readiness {
  #ready: boolean | undefined;
  #since: Date;
  #response: ReadyResponse = { status: 503, body: '{"ready":false,"reason":"starting","missing":[]}' };
  #inputs: ReadinessInputs | undefined;
  #shuttingDown = false;
  readonly #listeners: Array<() => void> = [];

  constructor(private readonly deps: { logger: Logger; metrics: ApiMetrics; clock: () => Date }) {
    this.#since = deps.clock();
    deps.metrics.ready.set(0);
  }

  /** Whether the box is ready now. */
  get ready(): boolean {
    return this.#ready === true;
  }

  /** When the current state began. */
  get since(): Date {
    return this.#since;
  }

  /** The precomputed /ready answer. */
  get response(): ReadyResponse {
    return this.#response;
  }

  /**
   * The API is closing: from now on the box is UNREADY (`missing: ["api"]`), so whatever routes
   * work to it stops before the listener goes away, while requests in flight finish.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    this.update(this.#inputs ?? { sealFile: '', sealPresent: true, mounts: [], slots: [] });
  }

  /** Be told whenever the /ready answer changes (status or body). */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /** Re-evaluate from fresh inputs. */
  update(inputs: ReadinessInputs): void {
    this.#inputs = inputs;
    const requirements: string[] = ['seal'];
    const missing: string[] = [];
    const reasons: string[] = [];
    if (this.#shuttingDown) {
      missing.push('api');
      reasons.push('the API is shutting down');
    }
    if (!inputs.sealPresent) {
      missing.push('seal');
      reasons.push(inputs.bootstrapFailure ? `bootstrap failed: ${inputs.bootstrapFailure}` : `bootstrap seal ${inputs.sealFile} is absent`);
    }
    for (const m of inputs.mounts) {
      const name = `mount:${m.name}`;
      requirements.push(name);
      if (!m.writable) {
        missing.push(name);
        reasons.push(`${m.path} is not writable (${m.error ?? 'unknown'})`);
      }
    }
    for (const d of inputs.disks ?? []) {
      const name = `disk:${d.name}`;
      requirements.push(name);
      if (d.low) {
        missing.push(name);
        reasons.push(`${describeLow(d)}: new agents are refused until space returns`);
      }
    }
    const degraded: string[] = [];
    for (const s of inputs.slots) {
      const usable = isSlotUsable(s.state);
      if (!s.critical) {
        if (!usable) degraded.push(s.slot);
        continue;
      }
      const name = `adapter:${s.slot}`;
      requirements.push(name);
      if (!usable) {
        missing.push(name);
        reasons.push(`critical adapter ${s.slot} (${s.impl}) is ${s.state}${s.reason ? `: ${s.reason}` : ''}`);
      }
    }
    if (inputs.relays) {
      requirements.push('relay');
      if (inputs.relays.reachable.length === 0) {
        missing.push('relay');
        reasons.push(`agent events are published but no relay is reachable (${inputs.relays.configured.join(', ')})`);
      }
    }
    if (inputs.egress) {
      requirements.push('egress');
      if (!inputs.egress.reachable) {
        missing.push('egress');
        reasons.push(
          `the egress proxy does not answer on ${inputs.egress.socketPath} (${inputs.egress.reason ?? 'unknown'}); agents are not started without it`,
        );
      }
    }
    const ready = missing.length === 0;
    if (ready !== this.#ready) {
      const previous = this.#ready;
      this.#ready = ready;
      this.#since = this.deps.clock();
      this.deps.metrics.ready.set(ready ? 1 : 0);
      const fields = { event: 'ReadinessChanged', ready, previous: previous ?? null, missing, degraded, reason: reasons.join('; ') || undefined };
      this.deps.logger[ready ? 'info' : 'warn'](fields, ready ? 'the box is READY' : `the box is UNREADY: ${reasons.join('; ')}`);
    }
    const since = this.#since.toISOString();
    const previous = this.#response;
    this.#response = ready
      ? { status: 200, body: JSON.stringify({ ready: true, since, requirements, degraded }) }
      : { status: 503, body: JSON.stringify({ ready: false, since, reason: reasons.join('; '), missing, degraded }) };
    if (this.#response.body !== previous.body) for (const listener of this.#listeners) listener();
  }
}
