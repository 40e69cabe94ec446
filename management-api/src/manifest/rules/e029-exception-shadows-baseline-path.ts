// E029: exceptions only add to the hardened baseline; a mount over a baseline path would replace it.
import type { Rule, RuleFinding } from './rule.js';
import { exceptionEntries, parseVolume, shadowedBaselinePath, tmpfsPath } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';
import { boxFacts } from '../../box-facts.js';

/** Exception tmpfs and volume container paths are neither a baseline path nor above one. */
export const exceptionShadowsBaselinePath: Rule = {
  id: 'E029',
  alias: 'exception-shadows-baseline-path',
  severity: 'error',
  summary: `exception tmpfs and volumes must not mount over a baseline path (${boxFacts.baseline.protectedPaths.join(', ')})`,
  check(m) {
    const out: RuleFinding[] = [];
    for (const [name, ex] of exceptionEntries(m)) {
      const mounts: Array<['tmpfs' | 'volumes', number, string | undefined]> = [
        ...ex.tmpfs.map((t, i): ['tmpfs', number, string] => ['tmpfs', i, tmpfsPath(t)]),
        ...ex.volumes.map((v, i): ['volumes', number, string | undefined] => ['volumes', i, parseVolume(v)?.container]),
      ];
      for (const [key, i, path] of mounts) {
        // Malformed volumes have no reliable container path; E034 reports them.
        if (!path?.startsWith('/')) continue;
        const hidden = shadowedBaselinePath(path);
        if (!hidden) continue;
        out.push(
          finding(
            ['security', 'exceptions', name, key, i],
            `security.exceptions.${name}.${key} mounts over ${path}, ${hidden === path ? 'a baseline path' : `hiding the baseline path ${hidden}`}`,
            `mount on a path of its own below it instead (for example ${path === '/' ? '' : path.replace(/\/$/, '')}/${name}), or on a path outside the baseline such as /dev/shm or /opt/${name}`,
          ),
        );
      }
    }
    return out;
  },
};
