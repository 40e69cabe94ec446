// E056: a profile's working directory is a path inside the workspace, written relative to it.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { profileEntries } from './helpers/profiles.js';

/** Why `cwd` cannot be an agent's working directory, or undefined when it can (symbolic links are checked at spawn). */
function cwdProblem(cwd: string): string | undefined {
  if (cwd.startsWith('/')) return 'is absolute';
  if (cwd.split('/').includes('..')) return 'climbs out with ..';
  if (cwd.includes('\u0000')) return 'holds a NUL byte';
  if (cwd.split('/').every((s) => s === '' || s === '.')) return 'is the workspace itself, which no agent may write as a whole';
  return undefined;
}

/** agents.profiles.<name>.cwd names a directory under the workspace. */
export const agentProfileCwdOutsideWorkspace: Rule = {
  id: 'E056',
  alias: 'agent-profile-cwd-outside-workspace',
  severity: 'error',
  summary: 'agents.profiles.<name>.cwd must be a directory inside the workspace, relative to it',
  check(m) {
    const out: RuleFinding[] = [];
    for (const [name, profile] of profileEntries(m)) {
      const problem = profile.cwd === undefined ? undefined : cwdProblem(profile.cwd);
      if (problem)
        out.push(
          finding(
            ['agents', 'profiles', name, 'cwd'],
            `agents.profiles.${name}.cwd = ${JSON.stringify(profile.cwd)} ${problem}`,
            `write a directory relative to the workspace, such as "repo" or "projects/${name}"`,
          ),
        );
    }
    return out;
  },
};
