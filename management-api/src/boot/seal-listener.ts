// The seal listener: a supervisord event listener (PROCESS_STATE and PROCESS_COMMUNICATION events, no polling) that writes
// the bootstrap seal atomically once every readiness-required programme is RUNNING. It starts from
// supervisord's snapshot, so a listener restarted mid-boot (or after the seal) recovers the truth.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runtimePaths } from '../runtime-paths.js';
import { stopSupervisedProgram, supervisorSocket } from '../probes/supervisor-programs.js';
import { startTimeOf } from '../programme/parent-watch.js';
import { bootEvents } from './boot-events.js';
import { listen } from './supervisor-protocol.js';
import { SealState, type SealAction } from './seal-state.js';
import { SealFiles } from './seal-files.js';
import { supervisorSnapshot } from './seal-snapshot.js';
import { readStartFailure } from '../programme/start-failure.js';

/** Options of one listener run. */
export interface SealListenerOptions {
  required: string[];
  oneshot?: string;
  sealFile: string;
  /** Written (JSON `{reason}`) when stage B fails or the seal times out, so /ready can say why it is not ready. */
  failedFile: string;
  timeoutSec: number;
  /** supervisord's XML-RPC socket, asked for the programmes' states before the first event. */
  supervisorSocket?: string;
  /** The line a programme that cannot start left (programme/start-failure.ts), for the failure marker. */
  startFailure?: (program: string) => string | undefined;
}

/**
 * Run the listener on this process's stdin/stdout until supervisord closes stdin. The seal and
 * failure marker found at start are this boot's (stage A removes both at every boot): they are
 * reconciled with supervisord's snapshot rather than deleted.
 */
export async function runSealListener(options: SealListenerOptions): Promise<void> {
  const events = bootEvents('seal');
  const started = performance.now();
  const files = new SealFiles(options.sealFile, options.failedFile);
  const state = new SealState({
    required: options.required,
    ...(options.oneshot ? { oneshot: options.oneshot } : {}),
    now: () => performance.now(),
    processAlive: (pid) => startTimeOf(pid) !== undefined,
    failedToStart: (program) => options.startFailure?.(program) !== undefined,
  });
  const snapshot = options.supervisorSocket ? await supervisorSnapshot(options.supervisorSocket) : undefined;
  const initial: SealAction = snapshot?.ok ? state.seed(snapshot.programs) : { kind: 'none' };
  events.emit('BootstrapSealStarted', {
    required: options.required,
    oneshot: options.oneshot ?? null,
    timeout_sec: options.timeoutSec,
    waiting_for: state.pending(),
    ...(snapshot && !snapshot.ok ? { snapshot_error: snapshot.error } : {}),
  });

  const act = (action: SealAction, fromSnapshot: boolean): void => {
    switch (action.kind) {
      case 'seal': {
        const elapsed = Math.round(performance.now() - started);
        files.seal({ sealed_at: new Date().toISOString(), elapsed_ms: elapsed, required: options.required });
        // Bootstrap completes once per boot; a required programme back after a restart only re-seals.
        if (action.again) events.emit('BootstrapResealed', { elapsed_ms: elapsed }, 'every required programme runs again; the seal is back');
        else events.emit('BootstrapCompleted', { elapsed_ms: elapsed, ...(fromSnapshot ? { from_snapshot: true } : {}) });
        break;
      }
      case 'down': {
        const why = options.startFailure?.(action.program) ?? action.reason;
        const reason = why ?? `${action.program} ${action.state === 'FATAL' ? 'could not be started (FATAL)' : 'exited and supervisord does not restart it'}`;
        files.recordProgramFailure(action.program, reason);
        // supervisord would restart it for ever: stop it, as its FATAL would have.
        if (action.reason && options.supervisorSocket) {
          const socket = options.supervisorSocket;
          void stopSupervisedProgram(socket, action.program).then((error) => {
            if (error) events.fail('RequiredProgramNotStopped', { program: action.program, error }, `supervisord keeps restarting it: ${error}`);
          });
        }
        events.fail(
          'RequiredProgramFailed',
          { program: action.program, state: action.state, reason },
          `${reason}; the box is not ready until it runs (supervisorctl start ${action.program})`,
        );
        break;
      }
      case 'unseal':
        files.unseal();
        events.fail('RequiredProgramDown', { program: action.program, state: action.state }, 'readiness withdrawn until it is RUNNING again');
        break;
      case 'fail':
        events.fail('BootstrapFailed', { reason: files.recordFailure(action.reason) });
        break;
      case 'none':
        break;
    }
  };
  act(initial, true);
  // A seal left by an earlier listener of this boot no longer holds when the snapshot says otherwise.
  if (initial.kind === 'none' && files.unseal())
    events.fail('RequiredProgramDown', { waiting_for: state.pending() }, 'the seal found at start no longer holds; withdrawn');

  // The timeout counts from the boot, not from this listener's start, when supervisord says when that was.
  const bootStartedMs = snapshot?.ok ? snapshot.bootStartedMs : undefined;
  const spentMs = bootStartedMs === undefined ? 0 : Math.max(0, Date.now() - bootStartedMs);
  const timer = setTimeout(
    () => {
      const waitingFor = state.timeoutPending();
      if (!waitingFor) return;
      const reason = `the seal timed out after ${options.timeoutSec} s; still waiting for: ${waitingFor.join(', ')}`;
      files.recordTimeout(reason, waitingFor);
      events.fail(
        'BootstrapSealTimeout',
        { waiting_for: waitingFor, timeout_sec: options.timeoutSec },
        `${reason}; still listening: the box seals if they come up`,
      );
    },
    Math.max(0, options.timeoutSec * 1000 - spentMs),
  );
  timer.unref();
  await listen(process.stdin, process.stdout, (event) => act(state.apply(event.eventName, event.payload, event.data), false));
  clearTimeout(timer);
}

/** Raised when the listener's settings are missing or malformed (a stale or hand-written supervisord.conf). */
export class SealSettingsError extends Error {}

/**
 * The seal timeout in seconds: `--timeout`, else AGENTBOX_SEAL_TIMEOUT_SEC, which the generated
 * supervisord.conf sets from bootstrap.seal_timeout_sec (the schema holds its default). Missing or
 * not a positive whole number is an error: a silent default here would disagree with the manifest.
 */
export function sealTimeoutSec(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): number {
  const [source, text] = flag !== undefined ? ['--timeout', flag] : ['AGENTBOX_SEAL_TIMEOUT_SEC', env['AGENTBOX_SEAL_TIMEOUT_SEC']];
  if (text === undefined || text === '') {
    throw new SealSettingsError(
      'AGENTBOX_SEAL_TIMEOUT_SEC is not set; the generated supervisord.conf sets it from bootstrap.seal_timeout_sec: regenerate it with `agentbox render` (or pass --timeout SECONDS)',
    );
  }
  const value = Number(text);
  if (!/^[0-9]+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new SealSettingsError(`${source} = "${text}" is not a positive whole number of seconds; regenerate supervisord.conf with \`agentbox render\``);
  }
  return value;
}

/**
 * Command-line entry. Settings come from flags or, as the generated supervisord.conf passes them,
 * from the environment: AGENTBOX_SEAL_PROGRAMS (comma-separated), AGENTBOX_SEAL_ONESHOT,
 * AGENTBOX_SEAL_FILE, AGENTBOX_SEAL_TIMEOUT_SEC; supervisord's socket from AGENTBOX_SUPERVISOR_URL
 * (or the runtime paths' default). Resolves to the exit code: 0 when supervisord closed stdin, 2
 * for missing or malformed settings (reported as BootstrapSealMisconfigured).
 */
export async function main(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { required: { type: 'string' }, oneshot: { type: 'string' }, timeout: { type: 'string' }, seal: { type: 'string' } },
  });
  const paths = runtimePaths(env);
  const sealFile = values.seal ?? env['AGENTBOX_SEAL_FILE'] ?? paths.sealFile;
  const oneshot = values.oneshot ?? env['AGENTBOX_SEAL_ONESHOT'];
  let timeoutSec: number;
  try {
    timeoutSec = sealTimeoutSec(values.timeout, env);
  } catch (err) {
    if (!(err instanceof SealSettingsError)) throw err;
    bootEvents('seal').fail('BootstrapSealMisconfigured', {}, err.message);
    return 2;
  }
  await runSealListener({
    required: (values.required ?? env['AGENTBOX_SEAL_PROGRAMS'] ?? '').split(',').filter(Boolean),
    ...(oneshot ? { oneshot } : {}),
    sealFile,
    // Beside the seal, wherever AGENTBOX_SEAL_FILE puts it (by default, runtime-paths' file).
    failedFile: path.join(path.dirname(sealFile), path.basename(paths.bootstrapFailedFile)),
    timeoutSec,
    supervisorSocket: supervisorSocket(env, paths),
    startFailure: (program) => readStartFailure(path.dirname(sealFile), program),
  });
  return 0;
}
