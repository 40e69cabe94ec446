// The seal decision as a pure state machine over supervisord process-state events: sealed when
// the one-shot bootstrap exited cleanly and every readiness-required programme is RUNNING;
// unsealed again when a required programme leaves RUNNING; failed when bootstrap fails.

/** What the listener must do after an event. */
export type SealAction =
  | { kind: 'none' }
  | { kind: 'seal' }
  | { kind: 'unseal'; program: string; state: string }
  | { kind: 'fail'; reason: string };

/** Configuration of the machine. */
export interface SealConfig {
  /** Programmes that must be RUNNING (supervisord process names). */
  required: readonly string[];
  /** The one-shot stage-B programme that must exit with an expected code, or undefined if none. */
  oneshot?: string;
}

/** Mutable seal state; feed it `PROCESS_STATE_*` events with `apply`. */
export class SealState {
  private readonly states = new Map<string, string>();
  private oneshotDone: boolean;
  private failed = false;
  sealed = false;

  constructor(private readonly config: SealConfig) {
    this.oneshotDone = config.oneshot === undefined;
  }

  /** Programmes still awaited (not RUNNING), for progress and timeout messages. */
  pending(): string[] {
    const waiting = this.config.required.filter((p) => this.states.get(p) !== 'RUNNING');
    return this.oneshotDone ? waiting : [...waiting, `${this.config.oneshot} (one-shot)`];
  }

  /** Apply one event (`eventName` like PROCESS_STATE_RUNNING, payload tokens) and decide. */
  apply(eventName: string, payload: Readonly<Record<string, string>>): SealAction {
    if (!eventName.startsWith('PROCESS_STATE_') || this.failed) return { kind: 'none' };
    const state = eventName.slice('PROCESS_STATE_'.length);
    const name = payload['processname'] ?? '';
    this.states.set(name, state);
    if (name === this.config.oneshot) {
      if (state === 'EXITED' && payload['expected'] === '1') this.oneshotDone = true;
      else if ((state === 'EXITED' && payload['expected'] === '0') || state === 'FATAL') {
        this.failed = true;
        this.sealed = false;
        return { kind: 'fail', reason: `${name} ${state === 'FATAL' ? 'could not be started' : 'exited with an unexpected status'}` };
      }
    }
    if (this.sealed && this.config.required.includes(name) && state !== 'RUNNING') {
      this.sealed = false;
      return { kind: 'unseal', program: name, state };
    }
    if (!this.sealed && this.pending().length === 0) {
      this.sealed = true;
      return { kind: 'seal' };
    }
    return { kind: 'none' };
  }
}
