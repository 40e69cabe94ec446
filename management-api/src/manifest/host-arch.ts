// This machine's architecture as a manifest target: what the box's programmes check their manifest for, and the CLI's default --target-arch.
import type { TargetArch } from './rules/rule.js';

/** Node's names (`process.arch`) of the architectures a box is built for. */
const TARGET_ARCH_OF_NODE_ARCH: Readonly<Record<string, TargetArch>> = { x64: 'x86_64', arm64: 'aarch64' };

/** This machine is none of the architectures a box is built for. */
export class UnknownHostArchError extends Error {
  override name = 'UnknownHostArchError';
}

/**
 * The target architecture of `nodeArch` (default this machine's, `process.arch`): x64 is x86_64,
 * arm64 is aarch64. Any other is refused rather than guessed, since the rules that depend on the
 * architecture (E013: GPUs) would then answer for a machine that is not this one.
 */
export function hostArch(nodeArch: string = process.arch): TargetArch {
  // Own keys only: a name such as `constructor` must not find the object's prototype.
  const arch = Object.hasOwn(TARGET_ARCH_OF_NODE_ARCH, nodeArch) ? TARGET_ARCH_OF_NODE_ARCH[nodeArch] : undefined;
  if (!arch) {
    throw new UnknownHostArchError(
      `this machine's architecture "${nodeArch}" (Node's process.arch) is not one a box is built for: boxes run on x86_64 (Node's x64) or aarch64 (arm64) only`,
    );
  }
  return arch;
}
