// E049: a compose volume name means nothing to a cluster; only a host directory maps (to a hostPath volume).
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { exceptionVolumes, onKubernetes, targetName } from './helpers/kubernetes.js';

/** On the Kubernetes targets, an exception volume must mount a host directory (an absolute path). */
export const exceptionVolumeWithoutKubernetesForm: Rule = {
  id: 'E049',
  alias: 'exception-volume-without-kubernetes-form',
  severity: 'error',
  summary: 'an exception volume naming a compose volume has no Kubernetes form (--target kubernetes or agent-sandbox)',
  check(m, ctx) {
    if (!onKubernetes(ctx)) return [];
    return exceptionVolumes(m)
      .filter((v) => v.host !== '' && !v.host.startsWith('/'))
      .map((v) =>
        finding(
          ['security', 'exceptions', v.exception, 'volumes', v.index],
          `security.exceptions.${v.exception}.volumes entry "${v.spec}" mounts the compose volume "${v.host}", which has no Kubernetes form (target ${targetName(ctx)})`,
          `mount a host directory instead ("/srv/${v.exception}:${v.container}${v.mode ? `:${v.mode}` : ''}", a hostPath volume), or render for compose (--target compose)`,
        ),
      );
  },
};
