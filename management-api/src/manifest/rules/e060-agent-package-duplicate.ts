// E060: each agent package and npm CLI is listed once; two versions of one npm package would fight over the same commands.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { splitNpmSpec } from '../../grammar/agent-packages.js';

/** The entries of `list` whose key an earlier entry already had, with that entry's index. */
function repeats(list: readonly string[], key: (entry: string) => string): Array<{ index: number; first: number }> {
  const seen = new Map<string, number>();
  const out: Array<{ index: number; first: number }> = [];
  list.forEach((entry, index) => {
    const k = key(entry);
    const first = seen.get(k);
    if (first === undefined) seen.set(k, index);
    else out.push({ index, first });
  });
  return out;
}

/** No attribute path twice in agents.packages, no package name twice in agents.npm. */
export const agentPackageDuplicate: Rule = {
  id: 'E060',
  alias: 'agent-package-duplicate',
  severity: 'error',
  summary: 'agents.packages lists each attribute once, and agents.npm each package once (at one version)',
  check(m) {
    const out: RuleFinding[] = [];
    for (const { index, first } of repeats(m.agents.packages, (e) => e))
      out.push(
        finding(
          ['agents', 'packages', index],
          `agents.packages[${index}] = ${JSON.stringify(m.agents.packages[index])} repeats agents.packages[${first}]`,
          'list each package once',
        ),
      );
    for (const { index, first } of repeats(m.agents.npm, (e) => splitNpmSpec(e).name))
      out.push(
        finding(
          ['agents', 'npm', index],
          `agents.npm[${index}] = ${JSON.stringify(m.agents.npm[index])} names the package of agents.npm[${first}] = ${JSON.stringify(m.agents.npm[first])} again`,
          'keep one version of each package: their commands would overwrite each other',
        ),
      );
    return out;
  },
};
