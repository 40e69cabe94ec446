// E058: an agent CLI baked from npm names one exact version, so two builds of one manifest bake the same files.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { npmSpecProblem } from '../../grammar/agent-packages.js';

/** Every [agents] npm entry is `name@x.y.z` (optionally `@scope/`, a pre-release or build suffix). */
export const agentNpmSpecNotExact: Rule = {
  id: 'E058',
  alias: 'agent-npm-spec-not-exact',
  severity: 'error',
  summary: 'agents.npm entries are name@exact-version (no range, tag, URL or path): image builds must be reproducible',
  check(m) {
    return m.agents.npm.flatMap((spec, i) => {
      const problem = npmSpecProblem(spec);
      return problem
        ? [
            finding(
              ['agents', 'npm', i],
              `agents.npm[${i}] = ${JSON.stringify(spec)}: ${problem}`,
              'pin one version, as npm view <name> version prints it: "@anthropic-ai/claude-code@2.1.332"',
            ),
          ]
        : [];
    });
  },
};
