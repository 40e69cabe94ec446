// The seal decision as a pure state machine over supervisord process-state events: sealed when
// the one-shot bootstrap completed (it says so through a process communication event, or exited
// cleanly) and every readiness-required programme is RUNNING;
// unsealed again when a required programme leaves RUNNING (for good when it is FATAL or exited
// without a restart coming); failed when bootstrap fails. A
// restarted listener seeds it from supervisord's snapshot, since past events are never replayed.
import { STAGE_B_COMPLETED } from './stage-b-report.js';
import { GIVE_UP_AFTER, StartFailures, startLoopReason } from './start-failures.js';

/** What the listener must do after an event. */
export type SealAction =
  | { kind: 'none' }
  | { kind: 'seal'; again?: boolean }
  | { kind: 'unseal'; program: string; state: string }
  /**
   * A required programme will not run again by itself: FATAL, or exited with a status supervisord
   * does not restart, or (with `reason`) failed so many starts in a row that it counts as FATAL
   * although supervisord keeps restarting it (start-failures.ts): the listener then stops it.
   */
  | { kind: 'down'; program: string; state: string; reason?: string }
  | { kind: 'fail'; reason: string };

/** Configuration of the machine. */
export interface SealConfig {
  /** Programmes that must be RUNNING (supervisord process names). */
  required: readonly string[];
  /** The one-shot stage-B programme that must exit with an expected code, or undefined if none. */
  oneshot?: string;
  /** The listener's clock in ms, which times a run from RUNNING to its exit (default: Date.now). */
  now?: () => number;
  /**
   * Whether a pid is a live process (not a zombie). A RUNNING event whose process has already
   * exited does not count: supervisord calls a process RUNNING before it reaps it.
   */
  processAlive?: (pid: number) => boolean;
  /**
   * Whether a programme's last start failed for good: it left a start-failure record (a start
   * that listens clears it) and exited with the start-failure status, which supervisord counts as
   * expected and does not restart.
   */
  failedToStart?: (program: string) => boolean;
}

/** One programme as supervisord's snapshot (getAllProcessInfo) reports it. */
export interface ProgramSnapshot {
  name: string;
  /** supervisord state name: RUNNING, STARTING, EXITED, FATAL, STOPPED, … */
  state: string;
  /** Exit status of its last run (meaningful when EXITED). */
  exitStatus: number;
}

/** Mutable seal state; feed it `PROCESS_STATE_*` events with `apply`. */
export class SealState {
  private readonly states = new Map<string, string>();
  private oneshotDone: boolean;
  #failed = false;
  /**
   * Seeded programmes whose events are still history: supervisord also delivers the events it
   * queued while the listener started, which lead up to the snapshot. A programme's events count
   * again from the first one that leaves its seeded state (`from_state`).
   */
  readonly #catchingUp = new Map<string, string>();
  #everSealed = false;
  #sealed = false;
  readonly #startFailures: StartFailures;
  /** Required programmes given up on after failed starts, until supervisord has stopped them. */
  readonly #givenUp = new Set<string>();

  /** Whether the seal holds now. */
  get sealed(): boolean {
    return this.#sealed;
  }

  #setSealed(value: boolean): void {
    this.#sealed = value;
    if (value) this.#everSealed = true;
  }

  constructor(private readonly config: SealConfig) {
    this.oneshotDone = config.oneshot === undefined;
    this.#startFailures = new StartFailures(config.now ?? Date.now);
  }

  /** Programmes still awaited (not RUNNING), for progress and timeout messages. */
  pending(): string[] {
    const waiting = this.config.required.filter((p) => this.states.get(p) !== 'RUNNING' || this.#givenUp.has(p));
    return this.oneshotDone ? waiting : [...waiting, `${this.config.oneshot} (one-shot)`];
  }

  /**
   * What a seal timeout waits for: the pending programmes while this boot has never been sealed
   * (or failed), else undefined. A seal withdrawn later is a programme down, not a slow boot.
   */
  timeoutPending(): string[] | undefined {
    return this.#everSealed || this.#failed ? undefined : this.pending();
  }

  /** Whether bootstrap failed (final: the seal never comes in this boot). */
  get failed(): boolean {
    return this.#failed;
  }

  /**
   * Start from supervisord's current states (before any event): the one-shot counts as done when
   * it EXITED with status 0 and as failed when it EXITED otherwise or is FATAL; programmes in any
   * other state are simply not there yet. Returns `seal` when that is already enough.
   */
  seed(programs: readonly ProgramSnapshot[]): SealAction {
    for (const p of programs) {
      this.states.set(p.name, p.state);
      this.#catchingUp.set(p.name, p.state);
      if (p.name !== this.config.oneshot) continue;
      if (p.state === 'EXITED' && p.exitStatus === 0) this.oneshotDone = true;
      else if (p.state === 'EXITED' || p.state === 'FATAL') {
        this.#failed = true;
        return { kind: 'fail', reason: p.state === 'FATAL' ? `${p.name} could not be started` : `${p.name} exited with status ${p.exitStatus}` };
      }
    }
    const fatal = programs.find((p) => p.state === 'FATAL' && this.config.required.includes(p.name));
    if (fatal) return { kind: 'down', program: fatal.name, state: fatal.state };
    // Already exited because it cannot start (a taken port), before this listener looked: down, as
    // its EXITED event would have said. The events replayed to the listener lead up to that state
    // and are skipped as history (#catchingUp), so nothing later would say it.
    const cannotStart = programs.find((p) => p.state === 'EXITED' && this.config.required.includes(p.name) && this.config.failedToStart?.(p.name));
    if (cannotStart) return { kind: 'down', program: cannotStart.name, state: cannotStart.state };
    if (this.pending().length > 0) return { kind: 'none' };
    this.#setSealed(true);
    return { kind: 'seal' };
  }

  /**
   * Apply one event (`eventName` like PROCESS_STATE_RUNNING, payload tokens, and for a
   * PROCESS_COMMUNICATION event its message) and decide.
   */
  apply(eventName: string, payload: Readonly<Record<string, string>>, data = ''): SealAction {
    if (this.#failed) return { kind: 'none' };
    if (eventName === 'PROCESS_COMMUNICATION_STDOUT') return this.#communication(payload['processname'] ?? '', data);
    if (!eventName.startsWith('PROCESS_STATE_')) return { kind: 'none' };
    const state = eventName.slice('PROCESS_STATE_'.length);
    const name = payload['processname'] ?? '';
    const seeded = this.#catchingUp.get(name);
    if (seeded !== undefined && payload['from_state'] !== undefined) {
      if (payload['from_state'] !== seeded) return { kind: 'none' };
      this.#catchingUp.delete(name);
    }
    const required = this.config.required.includes(name);
    if (this.#givenUp.has(name)) {
      // Until the listener's stop takes effect, its restarts are the loop it was given up on, not a return.
      this.states.set(name, state);
      if (state === 'STOPPED' || state === 'FATAL' || (state === 'EXITED' && payload['expected'] === '1')) this.#givenUp.delete(name);
      return { kind: 'none' };
    }
    const failedStart = required ? this.#countStart(name, state, payload) : undefined;
    if (failedStart) return failedStart;
    this.states.set(name, required && state === 'RUNNING' && !this.#alive(payload['pid']) ? 'STARTING' : state);
    if (name === this.config.oneshot) {
      if (state === 'EXITED' && payload['expected'] === '1') this.oneshotDone = true;
      else if ((state === 'EXITED' && payload['expected'] === '0') || state === 'FATAL') {
        this.#failed = true;
        this.#setSealed(false);
        return { kind: 'fail', reason: `${name} ${state === 'FATAL' ? 'could not be started' : 'exited with an unexpected status'}` };
      }
    }
    // FATAL, or an exit supervisord counts as expected (a programme that cannot start exits so): it stays down.
    if (this.config.required.includes(name) && (state === 'FATAL' || (state === 'EXITED' && payload['expected'] === '1'))) {
      this.#setSealed(false);
      return { kind: 'down', program: name, state };
    }
    if (this.#sealed && this.config.required.includes(name) && state !== 'RUNNING') {
      this.#setSealed(false);
      return { kind: 'unseal', program: name, state };
    }
    return this.#sealIfComplete();
  }

  /**
   * Count a required programme's starts; `down` once GIVE_UP_AFTER failed in a row (counting
   * starts over, so a programme started again by hand gets as many tries).
   */
  #countStart(name: string, state: string, payload: Readonly<Record<string, string>>): SealAction | undefined {
    let inARow = 0;
    if (state === 'RUNNING') this.#startFailures.running(name);
    else if (state === 'BACKOFF') inARow = this.#startFailures.backedOff(name);
    else if (state === 'EXITED' && payload['expected'] === '0') inARow = this.#startFailures.exited(name);
    else if (state === 'STOPPED' || state === 'FATAL') this.#startFailures.clear(name);
    if (inARow < GIVE_UP_AFTER) return undefined;
    this.#startFailures.clear(name);
    this.#givenUp.add(name);
    this.states.set(name, state);
    this.#setSealed(false);
    return { kind: 'down', program: name, state, reason: startLoopReason(name) };
  }

  /** Whether the process of a RUNNING event is still alive (unknown counts as alive). */
  #alive(pid: string | undefined): boolean {
    const n = Number(pid);
    return !this.config.processAlive || !Number.isInteger(n) || n <= 0 || this.config.processAlive(n);
  }

  /** The one-shot's report that it completed counts as its clean exit (its exit still follows). */
  #communication(name: string, data: string): SealAction {
    if (name !== this.config.oneshot || data !== STAGE_B_COMPLETED) return { kind: 'none' };
    this.oneshotDone = true;
    return this.#sealIfComplete();
  }

  #sealIfComplete(): SealAction {
    if (!this.#sealed && this.pending().length === 0) {
      // A programme back after the seal was withdrawn is not a second completed bootstrap.
      const again = this.#everSealed;
      this.#setSealed(true);
      return again ? { kind: 'seal', again } : { kind: 'seal' };
    }
    return { kind: 'none' };
  }
}
