// W003: /ready waits for a readiness programme; if it exits once and is never restarted, the box stays unready.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { programEntries } from './helpers/programs.js';

/** A `required_for_readiness` programme is restarted when it fails. */
export const readinessProgramNeverRestarts: Rule = {
  id: 'W003',
  alias: 'readiness-program-never-restarts',
  severity: 'warning',
  summary: 'a programme required for readiness should not use autorestart = "never"',
  check(m) {
    return programEntries(m)
      .filter(([, p]) => p.required_for_readiness && p.autorestart === 'never')
      .map(([name]) =>
        finding(
          ['programs', name, 'autorestart'],
          `programs.${name} is required_for_readiness but autorestart = "never": one crash leaves the box unready for good`,
          'use autorestart = "on-failure" (or "always"), or set required_for_readiness = false for a one-shot programme',
        ),
      );
  },
};
