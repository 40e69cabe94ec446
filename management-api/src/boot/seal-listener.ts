// The seal listener: a supervisord event listener (PROCESS_STATE events, no polling) that writes
// the bootstrap seal atomically once every readiness-required programme is RUNNING.
import { existsSync, readFileSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runtimePaths } from '../runtime-paths.js';
import { bootEvents } from './boot-events.js';
import { listen } from './supervisor-protocol.js';
import { SealState } from './seal-state.js';

/** Options of one listener run. */
export interface SealListenerOptions {
  required: string[];
  oneshot?: string;
  sealFile: string;
  /** Written (JSON `{reason}`) when stage B fails, so /ready can say why it is not ready. */
  failedFile: string;
  timeoutSec: number;
}

/** Write `content` to `file` atomically (tmp + rename in the same directory). */
export function writeAtomic(file: string, content: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, content, { mode: 0o644 });
  renameSync(tmp, file);
}

/** The `reason` recorded in a failure file, if there is one. */
function readReason(file: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { reason?: string }).reason;
  } catch {
    return undefined;
  }
}

/** Run the listener on this process's stdin/stdout until supervisord closes stdin. */
export async function runSealListener(options: SealListenerOptions): Promise<void> {
  const events = bootEvents('seal');
  const started = performance.now();
  const state = new SealState({ required: options.required, ...(options.oneshot ? { oneshot: options.oneshot } : {}) });
  // A seal from an earlier boot must never satisfy this one.
  rmSync(options.sealFile, { force: true });
  rmSync(options.failedFile, { force: true });
  events.emit('BootstrapSealStarted', { required: options.required, oneshot: options.oneshot ?? null, timeout_sec: options.timeoutSec });
  const timer = setTimeout(() => {
    if (!state.sealed) events.fail('BootstrapSealTimeout', { waiting_for: state.pending(), timeout_sec: options.timeoutSec }, 'not every required programme is RUNNING yet; still listening');
  }, options.timeoutSec * 1000);
  timer.unref();
  await listen(process.stdin, process.stdout, (event) => {
    const action = state.apply(event.eventName, event.payload);
    switch (action.kind) {
      case 'seal': {
        const elapsed = Math.round(performance.now() - started);
        writeAtomic(options.sealFile, JSON.stringify({ sealed_at: new Date().toISOString(), elapsed_ms: elapsed, required: options.required }) + '\n');
        events.emit('BootstrapCompleted', { elapsed_ms: elapsed });
        break;
      }
      case 'unseal':
        rmSync(options.sealFile, { force: true });
        events.fail('RequiredProgramDown', { program: action.program, state: action.state }, 'readiness withdrawn until it is RUNNING again');
        break;
      case 'fail': {
        rmSync(options.sealFile, { force: true });
        // Stage B records its own, more specific reason before it exits; keep that one.
        const reason = readReason(options.failedFile) ?? action.reason;
        if (!existsSync(options.failedFile)) writeAtomic(options.failedFile, JSON.stringify({ reason }) + '\n');
        events.fail('BootstrapFailed', { reason });
        break;
      }
      case 'none':
        break;
    }
  });
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
    throw new SealSettingsError('AGENTBOX_SEAL_TIMEOUT_SEC is not set; the generated supervisord.conf sets it from bootstrap.seal_timeout_sec: regenerate it with `agentbox render` (or pass --timeout SECONDS)');
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
 * AGENTBOX_SEAL_FILE, AGENTBOX_SEAL_TIMEOUT_SEC. Resolves to the exit code: 0 when supervisord
 * closed stdin, 2 for missing or malformed settings (reported as BootstrapSealMisconfigured).
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
  });
  return 0;
}
