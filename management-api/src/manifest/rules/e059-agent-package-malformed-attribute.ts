// E059: an [agents] packages entry is a nixpkgs attribute path, so the Nix build can look it up (and say which one is missing).
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { attributePathProblem } from '../../grammar/agent-packages.js';

/** Every [agents] packages entry is dot-separated Nix attribute names ("ripgrep", "python3Packages.pytest"). */
export const agentPackageMalformedAttribute: Rule = {
  id: 'E059',
  alias: 'agent-package-malformed-attribute',
  severity: 'error',
  summary: 'agents.packages entries are nixpkgs attribute paths (names joined by dots, such as python3Packages.pytest)',
  check(m) {
    return m.agents.packages.flatMap((entry, i) => {
      const problem = attributePathProblem(entry);
      return problem
        ? [
            finding(
              ['agents', 'packages', i],
              `agents.packages[${i}] = ${JSON.stringify(entry)}: ${problem}`,
              'write the attribute as search.nixos.org shows it under "nix-env -iA nixpkgs.<attribute>", without the nixpkgs. prefix',
            ),
          ]
        : [];
    });
  },
};
