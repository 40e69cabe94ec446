// E014: the Gaussian splatting toolchain runs on CUDA kernels; without an NVIDIA GPU it cannot run.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `features.gaussian_splatting` needs `features.gpu = "cuda"`. */
export const gaussianSplattingNeedsCuda: Rule = {
  id: 'E014',
  alias: 'gaussian-splatting-needs-cuda',
  severity: 'error',
  summary: 'features.gaussian_splatting needs features.gpu = "cuda"',
  check(m) {
    if (!m.features.gaussian_splatting || m.features.gpu === 'cuda') return [];
    return [
      finding(
        ['features', 'gaussian_splatting'],
        `features.gaussian_splatting = true needs features.gpu = "cuda", but gpu is "${m.features.gpu}"`,
        'set features.gpu = "cuda" and add [security.exceptions.gpu-cuda], or turn gaussian_splatting off',
      ),
    ];
  },
};
