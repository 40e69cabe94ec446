// Helpers for the Nix tests: the repository's flake evaluated offline against the stub inputs
// in tests/nix/stub-*, and plain nix-instantiate evaluations of lib/.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';

export { repoRoot };

/** The stub flakes that replace the real inputs (nothing is fetched). */
export const stubInputs = {
  nixpkgs: path.join(repoRoot, 'tests/nix/stub-nixpkgs'),
  'flake-utils': path.join(repoRoot, 'tests/nix/stub-flake-utils'),
  nix2container: path.join(repoRoot, 'tests/nix/stub-nix2container'),
};

/** This machine's Nix system name. */
export const currentSystem = `${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux`;

/** Result of one `nix` run. */
export interface NixRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `nix <args>` on `flake` (default: this repository) with every input replaced by its stub, no
 * substituters (nothing is fetched, nothing waits for a cache) and no lock file written. Builds
 * run as the calling user without a sandbox, whatever /etc/nix/nix.conf says: Debian's nix-bin
 * alone creates no `nixbld` group (Nix as root then refuses to build), and the stub nixpkgs'
 * builders are the host's /bin/sh, which a sandbox hides.
 */
export function nixFlake(args: string[], options: { flake?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): NixRun {
  const overrides = Object.entries(stubInputs).flatMap(([name, dir]) => ['--override-input', name, `path:${dir}`]);
  const flake = options.flake ?? repoRoot;
  const expanded = args.map((a) => (a.startsWith('.#') ? `${flake}${a.slice(1)}` : a));
  const r: SpawnSyncReturns<string> = spawnSync(
    'nix',
    [
      '--extra-experimental-features',
      'nix-command flakes',
      '--option',
      'substituters',
      '',
      '--option',
      'build-users-group',
      '',
      '--option',
      'sandbox',
      'false',
      ...expanded,
      '--no-write-lock-file',
      ...overrides,
    ],
    { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, encoding: 'utf8', timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `nix eval --json` of `attr` (".#…") on the stubbed flake; throws with Nix's stderr on failure. */
export function nixFlakeEval<T = unknown>(attr: string, options: { apply?: string; flake?: string } = {}): T {
  const r = nixFlake(['eval', '--json', attr, ...(options.apply ? ['--apply', options.apply] : [])], options);
  if (r.code !== 0) throw new Error(`nix eval ${attr} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** nix-instantiate --eval --strict --json of `expr` in the repository root. */
export function nixInstantiate(expr: string, argstr: Record<string, string> = {}): NixRun {
  const args = ['--eval', '--strict', '--json', '--store', 'dummy://', '--option', 'substituters', ''];
  // The kernel caps one argument at 128 KiB (a larger one fails the spawn with E2BIG): a long
  // string goes through a file that the expression reads as the same string.
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-nix-args-'));
  try {
    for (const [k, v] of Object.entries(argstr)) {
      if (Buffer.byteLength(v) <= 16 * 1024) {
        args.push('--argstr', k, v);
        continue;
      }
      const file = path.join(dir, `${k}.txt`);
      writeFileSync(file, v);
      args.push('--arg', k, `builtins.readFile ${JSON.stringify(file)}`);
    }
    const r = spawnSync('nix-instantiate', [...args, '--expr', expr], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr || (r.error ? String(r.error) : '') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
