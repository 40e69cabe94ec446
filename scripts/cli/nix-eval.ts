// Evaluates Agentbox's Nix library offline with nix-instantiate (no store writes, no network),
// for `agentbox render` and the local runtime mode.
import { execFile } from 'node:child_process';

/** The install hint printed when nix-instantiate is missing. */
export const NIX_INSTALL_HINT = 'sudo apt-get install nix-bin';

/** nix-instantiate is not installed (or not on PATH). */
export class NixNotFoundError extends Error {
  override name = 'NixNotFoundError';
  constructor() {
    super(`nix-instantiate not found; install it with \`${NIX_INSTALL_HINT}\``);
  }
}

/** The evaluation failed; `message` is Nix's error without the trace hint. */
export class NixEvalError extends Error {
  override name = 'NixEvalError';
  constructor(
    message: string,
    /** Nix's full stderr. */
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** What to evaluate: a file (a function called with `argstr`) or an expression. */
export type NixEvalTarget = { file: string; argstr?: Readonly<Record<string, string>> } | { expr: string; argstr?: Readonly<Record<string, string>> };

/** Options of an evaluation. */
export interface NixEvalOptions {
  /** Working directory (relative paths in `expr` resolve against it). */
  cwd?: string;
  /** Kill the evaluation after this long (default 60 s). */
  timeoutMs?: number;
}

/**
 * The command line for `target`: a strict, JSON-printing evaluation against the `dummy://` store,
 * so it needs neither a Nix daemon nor a writable /nix (it works as any user) and cannot fetch.
 */
export function nixEvalArgs(target: NixEvalTarget): string[] {
  const args = ['--eval', '--strict', '--json', '--store', 'dummy://', '--option', 'substituters', ''];
  for (const [name, value] of Object.entries(target.argstr ?? {})) args.push('--argstr', name, value);
  if ('file' in target) args.push(target.file);
  else args.push('--expr', target.expr);
  return args;
}

/** Nix's error text, from the first `error:` line, without the `--show-trace` hint. */
export function nixErrorMessage(stderr: string): string {
  const lines = stderr.split('\n');
  const start = lines.findIndex((l) => /^error\b/.test(l.trim()));
  const kept = (start >= 0 ? lines.slice(start) : lines).filter((l) => !/use '--show-trace'/.test(l));
  return kept.join('\n').trim() || 'nix-instantiate failed without a message';
}

/** Evaluate `target` and parse the JSON it prints. */
export function nixEvalJson<T = unknown>(target: NixEvalTarget, options: NixEvalOptions = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      'nix-instantiate',
      nixEvalArgs(target),
      { cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { killed?: boolean };
          if (e.code === 'ENOENT') return reject(new NixNotFoundError());
          if (e.killed) return reject(new NixEvalError(`nix-instantiate timed out after ${options.timeoutMs ?? 60_000} ms`, stderr));
          return reject(new NixEvalError(nixErrorMessage(stderr), stderr));
        }
        try {
          resolve(JSON.parse(stdout) as T);
        } catch {
          reject(new NixEvalError(`nix-instantiate printed no JSON: ${stdout.slice(0, 200)}`, stderr));
        }
      },
    );
  });
}
