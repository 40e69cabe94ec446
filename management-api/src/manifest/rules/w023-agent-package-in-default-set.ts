// W023: a package the image carries anyway (the default toolchain of schema/box-facts.json) listed again in [agents] packages.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { boxFacts } from '../../box-facts.js';

/** The default set's attribute paths; Node.js is chosen by version (lib/image.nix), so plain `nodejs` names it too. */
export const DEFAULT_PACKAGES: readonly string[] = boxFacts.image.contents.map((c) => (c.nixpkgs ? c.nixpkgs.join('.') : c.name));

/** agents.packages adds to the default toolchain; naming one of its packages changes nothing. */
export const agentPackageInDefaultSet: Rule = {
  id: 'W023',
  alias: 'agent-package-in-default-set',
  severity: 'warning',
  summary: 'agents.packages names a package every image already carries (the default toolchain)',
  check(m) {
    return m.agents.packages.flatMap((entry, i) =>
      DEFAULT_PACKAGES.includes(entry)
        ? [
            finding(
              ['agents', 'packages', i],
              `agents.packages[${i}] = ${JSON.stringify(entry)} is in every image already (the default toolchain: ${DEFAULT_PACKAGES.join(', ')})`,
              'remove it: agents.packages adds to the default set (docs/user/agents.md, Toolchains)',
            ),
          ]
        : [],
    );
  },
};
