// W020: on a cluster a host directory is a hostPath volume: the pod sees the files of whichever node runs it.
import type { Rule, RuleFinding } from './rule.js';
import { exceptionEntries, parseVolume } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';
import { onKubernetes, targetName } from './helpers/kubernetes.js';

/** On the Kubernetes targets, an exception volume on a host directory becomes a hostPath volume. */
export const exceptionVolumeIsHostPath: Rule = {
  id: 'W020',
  alias: 'exception-volume-is-host-path',
  severity: 'warning',
  summary: 'an exception volume on a host directory becomes a hostPath volume on Kubernetes (node-local files)',
  check(m, ctx) {
    if (!onKubernetes(ctx)) return [];
    const out: RuleFinding[] = [];
    for (const [name, ex] of exceptionEntries(m)) {
      ex.volumes.forEach((spec, i) => {
        const v = parseVolume(spec);
        if (!v || !v.host.startsWith('/')) return;
        out.push(
          finding(
            ['security', 'exceptions', name, 'volumes', i],
            `security.exceptions.${name}.volumes entry "${spec}" becomes a hostPath volume (target ${targetName(ctx)}): the box sees ${v.host} of whichever node runs it`,
            `make ${v.host} the same on every node that may run the box (or pin the pod to one node with a nodeSelector patch); the cluster must also admit hostPath volumes`,
          ),
        );
      });
    }
    return out;
  },
};
