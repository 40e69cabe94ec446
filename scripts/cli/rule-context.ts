// Builds the rule context from the command line: the target architecture and the environment
// are read here, at the edge, and injected into the (pure) rules.
import type { RuleContext, TargetArch } from '../../management-api/src/manifest/rules/rule.js';
import { UsageError } from './cli-errors.js';

const archByNode: Record<string, TargetArch> = { x64: 'x86_64', arm64: 'aarch64' };

/** The `--target-arch` option text shared by commands that run rules. */
export const targetArchHelp = '  --target-arch ARCH  x86_64 or aarch64: the architecture the box is built for (default: this machine)';

/** Context for rules: `--target-arch` (default this machine) and this process's environment. */
export function ruleContextFrom(targetArch: string | undefined): RuleContext {
  const arch = targetArch ?? archByNode[process.arch] ?? 'x86_64';
  if (arch !== 'x86_64' && arch !== 'aarch64') throw new UsageError(`--target-arch must be x86_64 or aarch64, not "${arch}"`);
  return { targetArch: arch, env: process.env };
}
