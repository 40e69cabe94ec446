// E005: values shaped like credentials (sk-…, ghp_…, long random strings) are secrets, wherever they are written.
import type { Rule, RuleFinding } from './rule.js';
import { isInlineSecretVariable, secretKind } from '../../secrets/secret-names.js';
import { finding, keyPath } from './helpers/findings.js';
import { programEntries } from './helpers/programs.js';
import { HTTP_SLOTS } from './helpers/slots.js';
import { urlValues } from './helpers/urls.js';

type Segments = Array<string | number>;

/** Every free-form value an operator might paste a key into (provider env_var is E022's). */
function candidates(m: Parameters<Rule['check']>[0]): Array<[Segments, string]> {
  const out: Array<[Segments, string]> = [];
  for (const [name, p] of programEntries(m)) {
    for (const [key, value] of Object.entries(p.environment)) {
      // One finding per key: a secret-named variable is already reported by E004.
      if (value !== undefined && !isInlineSecretVariable(key, value)) out.push([['programs', name, 'environment', key], value]);
    }
    for (const [i, arg] of p.args.entries()) out.push([['programs', name, 'args', i], arg]);
  }
  for (const slot of HTTP_SLOTS) {
    out.push([['integrations', slot, 'token_env'], m.integrations[slot].token_env]);
    out.push([['integrations', slot, 'token_file'], m.integrations[slot].token_file]);
  }
  out.push([['integrations', 'memory', 'connection_env'], m.integrations.memory.connection_env]);
  out.push([['integrations', 'memory', 'connection_file'], m.integrations.memory.connection_file]);
  for (const [i, arg] of m.integrations.orchestrator.args.entries()) out.push([['integrations', 'orchestrator', 'args', i], arg]);
  for (const u of urlValues(m)) out.push([u.segments, u.url]);
  return out;
}

/** No value may look like a literal credential. */
export const secretLookingValue: Rule = {
  id: 'E005',
  alias: 'secret-looking-value',
  severity: 'error',
  summary: 'values must not look like a literal key or token',
  check(m) {
    const out: RuleFinding[] = [];
    for (const [segments, value] of candidates(m)) {
      const kind = secretKind(value);
      if (!kind) continue;
      const names = segments.at(-1) === 'token_env' || segments.at(-1) === 'connection_env';
      out.push(
        finding(
          segments,
          `${keyPath(segments)} looks like ${kind}, written into the manifest`,
          names
            ? `write the NAME of the variable that holds the secret (for example "SERVICE_TOKEN"), never the secret itself; then revoke the exposed one`
            : `move the secret into a 0600 secret file or an environment variable given to the box at run time, and write only its path or name here; then revoke the exposed one`,
        ),
      );
    }
    return out;
  },
};
