// W012: an acknowledgement with nothing to acknowledge silently pre-approves capabilities or devices added later.
import type { Rule } from './rule.js';
import { exceptionEntries, hasNamespacesException } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';

/** `audit_acknowledged = true` only while some exception adds cap_add or devices, the sandbox-namespaces exception is declared, or agents run unconfined. */
export const auditAcknowledgedWithoutPrivilege: Rule = {
  id: 'W012',
  alias: 'audit-acknowledged-without-privilege',
  severity: 'warning',
  summary: 'security.audit_acknowledged = true with no cap_add, devices, sandbox-namespaces exception or unconfined agents to acknowledge',
  check(m) {
    if (!m.security.audit_acknowledged || !m.sandbox.enabled) return [];
    if (hasNamespacesException(m) || exceptionEntries(m).some(([, ex]) => ex.cap_add.length > 0 || ex.devices.length > 0)) return [];
    return [
      finding(
        ['security', 'audit_acknowledged'],
        'security.audit_acknowledged = true but no exception adds cap_add or devices, there is no [security.exceptions.sandbox-namespaces] and the agent sandbox is on',
        'set audit_acknowledged = false, so that adding capabilities, devices or the sandbox-namespaces exception, or turning the sandbox off, later asks for a fresh review',
      ),
    ];
  },
};
