// `agentbox config show [FILE]`: print the normalized manifest (every default applied) as JSON.
import { parseArgs } from 'node:util';
import { loadManifestFile } from '../../management-api/src/manifest/load-manifest.js';
import { formatDiagnostic } from '../../management-api/src/manifest/diagnostics.js';
import { ruleContextFrom, targetArchHelp } from './rule-context.js';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox config show [FILE] [--target-arch ARCH]

Print FILE (default ./agentbox.toml) as the normalized JSON every part of Agentbox reads:
the schema's defaults applied, keys in schema order. Its sha256 (of the canonical form) is
printed to stderr.

Options:
${targetArchHelp}
  -h, --help          show this help

Exit codes: 0 printed, 1 the manifest has errors (listed on stderr), 2 unreadable / not TOML / usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'target-arch': { type: 'string' } } });
  if (positionals.length > 1) throw new UsageError('expected at most one FILE');
  const file = positionals[0] ?? 'agentbox.toml';
  const result = await loadManifestFile(file, ruleContextFrom(values['target-arch']));
  for (const d of result.diagnostics) process.stderr.write(`${formatDiagnostic(file, d)}\n`);
  if (result.exitCode !== 0 || !result.manifest) return result.exitCode || 1;
  process.stdout.write(`${JSON.stringify(result.manifest, null, 2)}\n`);
  process.stderr.write(`sha256 ${result.sha256}\n`);
  return 0;
}
