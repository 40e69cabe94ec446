// E034: exception volumes are passed to the container engine as host:container[:ro|rw]; anything else fails at start.
import type { Rule, RuleFinding } from './rule.js';
import { exceptionEntries, parseVolume } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';

/** Each exception volume is `host:container[:ro|rw]` with an absolute container path. */
export const malformedExceptionVolume: Rule = {
  id: 'E034',
  alias: 'malformed-exception-volume',
  severity: 'error',
  summary: 'exception volumes must read host:container[:ro|rw] with an absolute container path',
  check(m) {
    const out: RuleFinding[] = [];
    for (const [name, ex] of exceptionEntries(m)) {
      ex.volumes.forEach((spec, i) => {
        const v = parseVolume(spec);
        const problem = !v
          ? 'is not host:container[:mode]'
          : v.host === ''
            ? 'has an empty host part'
            : !v.container.startsWith('/')
              ? `has a container path "${v.container}" that is not absolute`
              : v.mode !== undefined && v.mode !== 'ro' && v.mode !== 'rw'
                ? `has mode "${v.mode}" (only ro or rw)`
                : undefined;
        if (!problem) return;
        out.push(
          finding(
            ['security', 'exceptions', name, 'volumes', i],
            `security.exceptions.${name}.volumes entry "${spec}" ${problem}`,
            `write it as "<host path or volume name>:/absolute/container/path" with an optional ":ro", for example "${name}-data:/opt/${name}:ro"`,
          ),
        );
      });
    }
    return out;
  },
};
