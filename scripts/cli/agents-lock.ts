// `agentbox agents lock [FILE] [--check]`: write agents.lock.json beside the manifest, the npm lock
// of its [agents] npm CLIs (every package's tarball URL and integrity) that the Nix image fetches
// them from, and the test image installs them from with `npm ci`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadManifestFile } from '../../management-api/src/manifest/load-manifest.js';
import { formatDiagnostic } from '../../management-api/src/manifest/diagnostics.js';
import { AGENTS_LOCK_FILE, AgentNpmError, checkLock, resolveLock } from './image/agent-npm.js';
import { ruleContextFrom } from './rule-context.js';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox agents lock [FILE] [--check]

Resolve the npm agent CLIs of FILE's [agents] npm (default ./agentbox.toml) with the npm registry
and write ${AGENTS_LOCK_FILE} beside it: npm's package-lock.json of a project depending on exactly
those versions, every package with its tarball URL and integrity hash, each platform's optional
binary package included. The Nix image fetches each tarball by that hash (a fixed-output fetch:
the build itself needs no registry); \`agentbox image build\` installs from it with npm ci.
Commit it beside the manifest. Only package metadata is downloaded, no tarball, no script run.

Options:
  --check       write nothing; exit 1 when ${AGENTS_LOCK_FILE} is missing or names other versions
  -h, --help    show this help

Exit codes: 0 written (or current), 1 the manifest has errors / npm failed / stale (--check), 2 unreadable / usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { check: { type: 'boolean' } } });
  if (positionals.length > 1) throw new UsageError('expected at most one FILE');
  const file = positionals[0] ?? 'agentbox.toml';
  const result = await loadManifestFile(file, ruleContextFrom(undefined));
  for (const d of result.diagnostics) process.stderr.write(`${formatDiagnostic(file, d)}\n`);
  if (result.exitCode !== 0 || !result.manifest) return result.exitCode || 1;
  const specs = result.manifest.agents.npm;
  const lockFile = path.join(path.dirname(path.resolve(file)), AGENTS_LOCK_FILE);
  if (values.check) {
    if (!specs.length) return report(`${file}: [agents] npm is empty, no lock needed`, 0);
    if (!existsSync(lockFile)) return report(`${lockFile} is missing: run agentbox agents lock`, 1);
    try {
      checkLock(JSON.parse(readFileSync(lockFile, 'utf8')), specs, lockFile);
    } catch (err) {
      if (err instanceof AgentNpmError) return report(err.message, 1);
      throw err;
    }
    return report(`${lockFile} matches [agents] npm`, 0);
  }
  if (!specs.length) return report(`${file}: [agents] npm is empty: nothing to lock${existsSync(lockFile) ? ` (${lockFile} is unused)` : ''}`, 0);
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-agents-lock-'));
  try {
    const lock = await resolveLock(specs, work);
    writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
    const count = Object.keys((lock as { packages?: object }).packages ?? {}).length - 1;
    return report(`wrote ${lockFile}: ${specs.join(', ')} (${count} packages)`, 0);
  } catch (err) {
    if (err instanceof AgentNpmError) return report(err.message, 1);
    throw err;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function report(message: string, code: number): number {
  (code === 0 ? process.stdout : process.stderr).write(`${message}\n`);
  return code;
}
