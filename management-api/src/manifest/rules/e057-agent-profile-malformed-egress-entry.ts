// E057: a profile's extra egress entries follow the grammar of sandbox.egress.allow_domains; one the proxy could never match is refused.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { profileEntries } from './helpers/profiles.js';
import { entryProblem } from '../../grammar/egress-entry.js';

/** Every agents.profiles.<name>.egress.allow_domains entry is a host name, `*.` and a host name, or a literal address. */
export const agentProfileMalformedEgressEntry: Rule = {
  id: 'E057',
  alias: 'agent-profile-malformed-egress-entry',
  severity: 'error',
  summary: 'agents.profiles.<name>.egress.allow_domains entries are names, *.suffix names or literal addresses',
  check(m) {
    return profileEntries(m).flatMap(([name, profile]) =>
      profile.egress.allow_domains.flatMap((entry, i) => {
        const problem = entryProblem(entry);
        return problem
          ? [
              finding(
                ['agents', 'profiles', name, 'egress', 'allow_domains', i],
                `agents.profiles.${name}.egress.allow_domains[${i}] = ${JSON.stringify(entry)}: ${problem}`,
                'list an exact name (api.example.com), a suffix (*.example.com) or one address (203.0.113.7)',
              ),
            ]
          : [];
      }),
    );
  },
};
