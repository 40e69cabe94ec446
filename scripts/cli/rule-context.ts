// Builds the rule context from the command line: the target architecture and the environment
// are read here, at the edge, and injected into the (pure) rules.
import { DEPLOY_TARGETS, type DeployTarget, type RuleContext } from '../../management-api/src/manifest/rules/rule.js';
import { hostArch, UnknownHostArchError } from '../../management-api/src/manifest/host-arch.js';
import { UsageError } from './cli-errors.js';

/** The `--target-arch` option text shared by commands that run rules. */
export const targetArchHelp = '  --target-arch ARCH  x86_64 or aarch64: the architecture the box is built for (default: this machine)';

/** Context for rules: `--target-arch` (default this machine) and this process's environment. */
export function ruleContextFrom(targetArch: string | undefined): RuleContext {
  const arch = targetArch ?? defaultTargetArch();
  if (arch !== 'x86_64' && arch !== 'aarch64') throw new UsageError(`--target-arch must be x86_64 or aarch64, not "${arch}"`);
  return { targetArch: arch, env: process.env };
}

/** This machine's architecture; on a machine no box is built for, a UsageError asking for --target-arch. */
function defaultTargetArch(): string {
  try {
    return hostArch();
  } catch (err) {
    if (err instanceof UnknownHostArchError) throw new UsageError(`${err.message}; pass --target-arch x86_64 or aarch64`);
    throw err;
  }
}

/** The `--target` option text shared by `config validate` (and described alike by `render`). */
export const targetHelp = `  --target TARGET     ${DEPLOY_TARGETS.join(', ')} (default compose): where the box will run; the
                      Kubernetes targets also run the rules about what has no Kubernetes form
                      (E048, E049, W019, W020), as \`agentbox render --target\` does`;

/** The deploy target named by `--target` (default compose); a UsageError for any other name. */
export function deployTargetFrom(target: string | undefined): DeployTarget {
  const t = target ?? 'compose';
  if (!(DEPLOY_TARGETS as readonly string[]).includes(t)) throw new UsageError(`--target must be one of ${DEPLOY_TARGETS.join(', ')}, not "${t}"`);
  return t as DeployTarget;
}
