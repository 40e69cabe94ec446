// E047: the sandbox-namespaces exception widens Docker's seccomp profile for the whole container, so it needs an explicit review.
import type { Rule } from './rule.js';
import { hasNamespacesException, NAMESPACES_EXCEPTION } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';

/** `[security.exceptions.sandbox-namespaces]` needs `security.audit_acknowledged = true`. */
export const namespacesExceptionNeedsAudit: Rule = {
  id: 'E047',
  alias: 'namespaces-exception-needs-audit',
  severity: 'error',
  summary: '[security.exceptions.sandbox-namespaces] needs security.audit_acknowledged = true',
  check(m) {
    if (!hasNamespacesException(m) || m.security.audit_acknowledged) return [];
    return [
      finding(
        ['security', 'exceptions', NAMESPACES_EXCEPTION],
        `[security.exceptions.${NAMESPACES_EXCEPTION}] runs the container with a seccomp profile that allows new user namespaces, mount, umount2 and pivot_root, but security.audit_acknowledged is false`,
        `review what the profile adds (docs/user/sandbox.md, "In the container"), then set [security] audit_acknowledged = true — or delete the exception (agents then run under the launcher alone)`,
      ),
    ];
  },
};
