// `agentbox config validate [FILE] [--json] [--target T]`: check a manifest (for a deploy target);
// exit 0 valid (warnings allowed), 1 errors, 2 unreadable / not TOML / usage.
import { parseArgs } from 'node:util';
import { loadManifestFile } from '../../management-api/src/manifest/load-manifest.js';
import { formatDiagnostic } from '../../management-api/src/manifest/diagnostics.js';
import { deployTargetFrom, ruleContextFrom, targetArchHelp, targetHelp } from './rule-context.js';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox config validate [FILE] [--json] [--target TARGET] [--target-arch ARCH]

Check FILE (default ./agentbox.toml): TOML syntax, the JSON Schema, then the semantic rules.

Options:
  --json              print one JSON object (shape in docs/user/cli.md) instead of text
${targetHelp}
${targetArchHelp}
  -h, --help          show this help

Exit codes: 0 valid (warnings allowed), 1 errors, 2 unreadable file / not TOML / bad usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, target: { type: 'string' }, 'target-arch': { type: 'string' } },
  });
  if (positionals.length > 1) throw new UsageError('expected at most one FILE');
  const file = positionals[0] ?? 'agentbox.toml';
  const target = deployTargetFrom(values.target);
  const result = await loadManifestFile(file, { ...ruleContextFrom(values['target-arch']), target });
  if (values.json) {
    const report = {
      file,
      target,
      valid: result.exitCode === 0,
      exitCode: result.exitCode,
      errors: result.errorCount,
      warnings: result.warningCount,
      sha256: result.sha256 ?? null,
      diagnostics: result.diagnostics,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return result.exitCode;
  }
  for (const d of result.diagnostics) {
    (d.severity === 'error' ? process.stderr : process.stdout).write(`${formatDiagnostic(file, d)}\n`);
  }
  const counts = `${plural(result.errorCount, 'error')}, ${plural(result.warningCount, 'warning')}`;
  const where = target === 'compose' ? '' : ` for ${target}`;
  const verdict = result.exitCode === 0 ? `${file}: valid${where} (${counts})` : `${file}: invalid${where} (${counts})`;
  (result.exitCode === 0 ? process.stdout : process.stderr).write(`${verdict}\n`);
  return result.exitCode;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
