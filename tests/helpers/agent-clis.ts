// The real coding-agent CLIs the end-to-end tests run, installed from the npm registry into a cache once and reused.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The versions the tests pin, in one place. They are not dependencies of the project: together
 * they are about 800 MB of native executables that only these tests run, and an `npm ci` of the
 * project must not fetch them.
 */
export const AGENT_CLIS = {
  '@anthropic-ai/claude-code': '2.1.332',
  '@openai/codex': '0.171.0',
} as const;

const repo = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where the CLIs are kept: under the installation's `node_modules` (removed with it), which agents
 * are granted read and execute beneath, as they would be an image's baked CLIs.
 * `AGENTBOX_AGENT_CLIS_DIR` names another place (it must then be readable by agents).
 */
export function agentClisRoot(): string {
  const configured = process.env['AGENTBOX_AGENT_CLIS_DIR'];
  if (configured) return path.resolve(configured);
  return path.join(realpathSync(path.join(repo, 'node_modules')), '.cache', 'agent-clis');
}

/** The installed CLIs: the `.bin` directory to put on an agent's PATH, and how long getting them took. */
export interface AgentClis {
  /** `<prefix>/node_modules/.bin`, holding `claude` and `codex`. */
  binDir: string;
  /** The version-keyed install prefix. */
  prefix: string;
  /** True when this call downloaded them (false: found in the cache). */
  downloaded: boolean;
  ms: number;
}

/**
 * The pinned CLIs, installed with `npm install --prefix` into a directory named after the pins
 * when absent. An install goes to a directory of its own and is renamed into place whole, so a
 * test process never sees a half-installed tree and two installing at once cannot mix their files
 * (the second rename loses and its copy is removed). Network: the npm registry only.
 */
export async function ensureAgentClis(): Promise<AgentClis> {
  const started = Date.now();
  const specs = Object.entries(AGENT_CLIS).map(([name, version]) => `${name}@${version}`);
  const key = specs.join(' ').replace(/[^A-Za-z0-9.@-]+/g, '_');
  const root = agentClisRoot();
  const prefix = path.join(root, key);
  const binDir = path.join(prefix, 'node_modules', '.bin');
  const complete = () => existsSync(path.join(prefix, '.complete'));
  if (complete()) return { binDir, prefix, downloaded: false, ms: Date.now() - started };
  mkdirSync(root, { recursive: true, mode: 0o755 });
  const staging = `${prefix}.installing-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o755 });
  writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify({ private: true, description: 'agent CLIs for the end-to-end tests' })}\n`);
  try {
    // Install scripts stay on: Claude Code's postinstall puts its platform binary in place of the
    // bin/claude.exe stub. The platform packages are optional dependencies picked by npm.
    await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', '--prefix', staging, ...specs], staging);
    for (const bin of ['claude', 'codex'])
      if (!existsSync(path.join(staging, 'node_modules', '.bin', bin))) throw new Error(`npm installed no ${bin} into ${staging}`);
    writeFileSync(path.join(staging, '.complete'), `${specs.join('\n')}\n`);
    try {
      renameSync(staging, prefix);
    } catch (err) {
      // Another process put its copy in place first: use that one.
      if (!complete()) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { binDir, prefix, downloaded: true, ms: Date.now() - started };
}

/** The version a CLI's package reports, read from the installed tree. */
export function installedVersion(clis: AgentClis, name: keyof typeof AGENT_CLIS): string {
  return (JSON.parse(readFileSync(path.join(clis.prefix, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`))));
  });
}
