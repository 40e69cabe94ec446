// E049: a compose volume name means nothing to a cluster; only a host directory maps (to a hostPath volume).
import type { Rule, RuleFinding } from './rule.js';
import { exceptionEntries, parseVolume } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';
import { onKubernetes, targetName } from './helpers/kubernetes.js';

/** On the Kubernetes targets, an exception volume must mount a host directory (an absolute path). */
export const exceptionVolumeWithoutKubernetesForm: Rule = {
  id: 'E049',
  alias: 'exception-volume-without-kubernetes-form',
  severity: 'error',
  summary: 'an exception volume naming a compose volume has no Kubernetes form (--target kubernetes or agent-sandbox)',
  check(m, ctx) {
    if (!onKubernetes(ctx)) return [];
    const out: RuleFinding[] = [];
    for (const [name, ex] of exceptionEntries(m)) {
      ex.volumes.forEach((spec, i) => {
        const v = parseVolume(spec);
        // Malformed entries are E034's.
        if (!v || v.host === '' || v.host.startsWith('/')) return;
        out.push(
          finding(
            ['security', 'exceptions', name, 'volumes', i],
            `security.exceptions.${name}.volumes entry "${spec}" mounts the compose volume "${v.host}", which has no Kubernetes form (target ${targetName(ctx)})`,
            `mount a host directory instead ("/srv/${name}:${v.container}${v.mode ? `:${v.mode}` : ''}", a hostPath volume), or render for compose (--target compose)`,
          ),
        );
      });
    }
    return out;
  },
};
