// W019: a pod names a seccomp profile only by reference to a file on the node, which the render cannot ship.
import type { Rule } from './rule.js';
import { agentsUseNamespaces, hasNamespacesException, NAMESPACES_EXCEPTION } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';
import { onKubernetes, targetName } from './helpers/kubernetes.js';

/** On the Kubernetes targets the sandbox-namespaces exception is left out of the pod: say so, and what agents get instead. */
export const namespacesExceptionWithoutKubernetesForm: Rule = {
  id: 'W019',
  alias: 'namespaces-exception-without-kubernetes-form',
  severity: 'warning',
  summary:
    '[security.exceptions.sandbox-namespaces] has no Kubernetes form: the pod keeps the RuntimeDefault seccomp profile (--target kubernetes or agent-sandbox)',
  check(m, ctx) {
    if (!onKubernetes(ctx) || !hasNamespacesException(m) || !agentsUseNamespaces(m)) return [];
    const agents =
      m.sandbox.namespaces === 'required'
        ? 'with sandbox.namespaces = "required" every agent spawn is then refused'
        : 'agents then run under the launcher alone (Landlock, seccomp, rlimits), without bubblewrap';
    return [
      finding(
        ['security', 'exceptions', NAMESPACES_EXCEPTION],
        `[security.exceptions.${NAMESPACES_EXCEPTION}] has no Kubernetes form (target ${targetName(ctx)}): a pod can only name a seccomp profile already installed on its node, so the pod keeps RuntimeDefault and ${agents}`,
        `to give agents namespaces on a cluster, install the profile agentbox render writes for compose on the nodes and set seccompProfile {type: Localhost} in a patch of the generated pod; or delete the exception for this target`,
      ),
    ];
  },
};
