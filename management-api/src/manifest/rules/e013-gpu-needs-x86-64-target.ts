// E013: the image's GPU runtimes (CUDA, ROCm) are built for x86_64 only; on an aarch64 target the feature cannot exist.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `features.gpu` other than "none" needs an x86_64 target. */
export const gpuNeedsX8664Target: Rule = {
  id: 'E013',
  alias: 'gpu-needs-x86-64-target',
  severity: 'error',
  summary: 'features.gpu = "cuda" or "rocm" needs an x86_64 target',
  check(m, ctx) {
    if (m.features.gpu === 'none' || ctx.targetArch === 'x86_64') return [];
    return [
      finding(
        ['features', 'gpu'],
        `features.gpu = "${m.features.gpu}" is not available on the ${ctx.targetArch} target`,
        'set features.gpu = "none" for this target, or build for x86_64 (--target-arch x86_64)',
      ),
    ];
  },
};
