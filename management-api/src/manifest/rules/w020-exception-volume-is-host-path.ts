// W020: on a cluster a host directory is a hostPath volume: the pod sees the files of whichever node runs it.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { exceptionVolumes, onKubernetes, targetName } from './helpers/kubernetes.js';

/** On the Kubernetes targets, an exception volume on a host directory becomes a hostPath volume. */
export const exceptionVolumeIsHostPath: Rule = {
  id: 'W020',
  alias: 'exception-volume-is-host-path',
  severity: 'warning',
  summary: 'an exception volume on a host directory becomes a hostPath volume on Kubernetes (node-local files)',
  check(m, ctx) {
    if (!onKubernetes(ctx)) return [];
    return exceptionVolumes(m)
      .filter((v) => v.host.startsWith('/'))
      .map((v) =>
        finding(
          ['security', 'exceptions', v.exception, 'volumes', v.index],
          `security.exceptions.${v.exception}.volumes entry "${v.spec}" becomes a hostPath volume (target ${targetName(ctx)}): the box sees ${v.host} of whichever node runs it`,
          `make ${v.host} the same on every node that may run the box (or pin the pod to one node with a nodeSelector patch); the cluster must also admit hostPath volumes`,
        ),
      );
  },
};
