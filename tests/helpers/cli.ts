// Runs the compiled `agentbox` bin (as users run it) and captures its exit code and output.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The bundled CLI, as installed (built by `npm run build`). */
export const agentboxBin = path.join(repoRoot, 'dist/bin/agentbox.js');

/** Result of one CLI run. */
export interface CliResult {
  code: number | null;
  /** The signal that ended it, when one did (then `code` is null). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run `agentbox ...args` in `cwd` (default: the repository root). */
export function runAgentbox(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [agentboxBin, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: options.env ?? process.env,
    encoding: 'utf8',
    input: options.input ?? '',
    timeout: 60_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Like {@link runAgentbox}, without blocking this process: for runs against a server that lives
 * in the test process itself (a synchronous spawn would stop it from answering).
 */
export function runAgentboxAsync(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [agentboxBin, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? process.env,
      // Standard input only when the test gives some (then written and closed).
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    let stdout = '';
    let stderr = '';
    // Piped above; the typings cannot tell for a stdin chosen at run time.
    if (!child.stdout || !child.stderr) throw new Error('the CLI was spawned without stdout and stderr pipes');
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
