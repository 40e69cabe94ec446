// The npm-distributed agent CLIs of a manifest ([agents] npm), installed from the npm registry at
// image build time into a content-keyed cache and reused: what the test image bakes under
// image.agentNpmDir. Nothing is installed when the box boots.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { splitNpmSpec } from '../../../management-api/src/grammar/agent-packages.js';

/** The lock file `agentbox agents lock` writes beside the manifest (npm's package-lock.json format). */
export const AGENTS_LOCK_FILE = 'agents.lock.json';

/** Raised when npm fails or a lock file does not match the manifest; the message says what to do. */
export class AgentNpmError extends Error {
  override name = 'AgentNpmError';
}

/** An installed set of CLIs. */
export interface AgentNpmInstall {
  /** The install prefix: holds node_modules/. */
  prefix: string;
  /** Command name → path of its file relative to node_modules (the listed packages' `bin` only). */
  bins: Record<string, string>;
  /** True when this call ran npm (false: found in the cache). */
  installed: boolean;
}

/** The package.json of the synthetic project whose dependencies are the specs (the lock's root entry mirrors it). */
export function lockProject(specs: readonly string[]): { name: string; version: string; private: true; dependencies: Record<string, string> } {
  return {
    name: 'agentbox-agent-clis',
    version: '1.0.0',
    private: true,
    dependencies: Object.fromEntries(specs.map((s) => [splitNpmSpec(s).name, splitNpmSpec(s).version])),
  };
}

/**
 * The lock's dependencies when they are exactly the specs, else an AgentNpmError naming the
 * difference: a stale lock would bake other versions than the manifest names.
 */
export function checkLock(lock: unknown, specs: readonly string[], file: string): void {
  const root = (lock as { packages?: Record<string, { dependencies?: Record<string, string> }> }).packages?.[''];
  const have = root?.dependencies ?? {};
  const want = lockProject(specs).dependencies;
  const differ = [...new Set([...Object.keys(have), ...Object.keys(want)])].filter((n) => have[n] !== want[n]).sort();
  if (differ.length)
    throw new AgentNpmError(
      `${file} does not match [agents] npm (${differ.map((n) => `${n}: lock ${have[n] ?? '-'}, manifest ${want[n] ?? '-'}`).join('; ')}): run agentbox agents lock`,
    );
}

/**
 * The specs installed under `<cacheDir>/npm/<key>` (the key hashes the specs, the lock, the
 * platform and Node's major version), with `npm ci` from `lock` when given, else `npm install`.
 * An install goes to a directory of its own and is renamed into place whole, so a concurrent
 * build never sees half a tree. Install scripts run: Claude Code's puts its platform binary in place.
 */
export async function ensureAgentNpm(o: {
  specs: readonly string[];
  cacheDir: string;
  lock?: object;
  progress?: (msg: string) => void;
}): Promise<AgentNpmInstall> {
  const project = lockProject(o.specs);
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        specs: [...o.specs].sort(),
        lock: o.lock ?? null,
        platform: `${process.platform}-${process.arch}`,
        node: process.versions.node.split('.')[0],
      }),
    )
    .digest('hex')
    .slice(0, 24);
  const prefix = path.join(o.cacheDir, 'npm', key);
  const done = path.join(prefix, '.complete');
  let installed = false;
  if (!existsSync(done)) {
    mkdirSync(path.dirname(prefix), { recursive: true });
    const staging = `${prefix}.installing-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify(project, null, 2)}\n`);
    if (o.lock) writeFileSync(path.join(staging, 'package-lock.json'), `${JSON.stringify(o.lock, null, 2)}\n`);
    o.progress?.(`installing ${o.specs.join(' ')} from the npm registry${o.lock ? ` (${AGENTS_LOCK_FILE})` : ''}`);
    try {
      await npm([o.lock ? 'ci' : 'install', '--no-audit', '--no-fund', '--loglevel=error', ...(o.lock ? [] : ['--no-package-lock'])], staging);
      writeFileSync(path.join(staging, '.complete'), `${o.specs.join('\n')}\n`);
      try {
        renameSync(staging, prefix);
      } catch (err) {
        if (!existsSync(done)) throw err; // another build put its copy in place first
      }
      installed = true;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  return { prefix, bins: packageBins(prefix, o.specs), installed };
}

/** The commands the listed packages declare (`bin` in their package.json), not their dependencies'. */
export function packageBins(prefix: string, specs: readonly string[]): Record<string, string> {
  const bins: Record<string, string> = {};
  for (const spec of specs) {
    const { name } = splitNpmSpec(spec);
    const pkg = JSON.parse(readFileSync(path.join(prefix, 'node_modules', name, 'package.json'), 'utf8')) as {
      name: string;
      bin?: string | Record<string, string>;
    };
    const declared = typeof pkg.bin === 'string' ? { [name.replace(/^@[^/]+\//, '')]: pkg.bin } : (pkg.bin ?? {});
    for (const [cmd, file] of Object.entries(declared)) bins[cmd] = path.posix.join(name, path.posix.normalize(file));
  }
  return bins;
}

/** The lock of `specs`, as npm resolves them today (`npm install --package-lock-only`: metadata only, no tarball, no script). */
export async function resolveLock(specs: readonly string[], workDir: string): Promise<object> {
  mkdirSync(workDir, { recursive: true });
  writeFileSync(path.join(workDir, 'package.json'), `${JSON.stringify(lockProject(specs), null, 2)}\n`);
  await npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], workDir);
  return JSON.parse(readFileSync(path.join(workDir, 'package-lock.json'), 'utf8')) as object;
}

function npm(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => reject(new AgentNpmError(`cannot run npm: ${err.message}`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new AgentNpmError(`npm ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`))));
  });
}
