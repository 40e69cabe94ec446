// Runs the compiled `agentbox` bin (as users run it) and captures its exit code and output.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The bundled CLI, as installed (built by `npm run build`). */
export const agentboxBin = path.join(repoRoot, 'dist/bin/agentbox.js');

/** A CLI run still going after this long is ended with SIGTERM. */
export const CLI_TIMEOUT_MS = 60_000;

/** Result of one CLI run. */
export interface CliResult {
  code: number | null;
  /** The signal that ended it, when one did (then `code` is null). */
  signal: NodeJS.Signals | null;
  /** How long it ran: a signal after about CLI_TIMEOUT_MS is the helper's own timeout, not a stray kill. */
  ms: number;
  stdout: string;
  stderr: string;
}

/** Run `agentbox ...args` in `cwd` (default: the repository root). */
export function runAgentbox(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): CliResult {
  const started = performance.now();
  const r = spawnSync(process.execPath, [agentboxBin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? process.env,
    encoding: 'utf8',
    input: options.input ?? '',
    timeout: CLI_TIMEOUT_MS,
  });
  return { code: r.status, signal: r.signal, ms: Math.round(performance.now() - started), stdout: r.stdout, stderr: r.stderr };
}

/**
 * Like {@link runAgentbox}, without blocking this process: for runs against a server that lives
 * in the test process itself (a synchronous spawn would stop it from answering).
 */
export function runAgentboxAsync(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [agentboxBin, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      // Standard input only when the test gives some (then written and closed).
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: CLI_TIMEOUT_MS,
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    let stdout = '';
    let stderr = '';
    // Piped above; the typings cannot tell for a stdin chosen at run time.
    if (!child.stdout || !child.stderr) throw new Error('the CLI was spawned without stdout and stderr pipes');
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, ms: Math.round(performance.now() - started), stdout, stderr }));
  });
}
