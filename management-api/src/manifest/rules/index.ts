// The rule catalogue: every semantic rule, in id order, and the ids retired for good.
import type { RetiredRule, Rule } from './rule.js';
import { externalAdapterNeedsFederation } from './e001-external-adapter-needs-federation.js';
import { externalAdapterNeedsEndpoint } from './e002-external-adapter-needs-endpoint.js';
import { credentialsInUrl } from './e003-credentials-in-url.js';
import { secretInEnvironment } from './e004-secret-in-environment.js';
import { secretLookingValue } from './e005-secret-looking-value.js';
import { portCollision } from './e006-port-collision.js';
import { featureNeedsException } from './e007-feature-needs-exception.js';
import { exceptionWithoutFeature } from './e008-exception-without-feature.js';
import { privilegedExceptionNeedsAudit } from './e009-privileged-exception-needs-audit.js';
import { relayNeedsSovereignMesh } from './e010-relay-needs-sovereign-mesh.js';
import { wildcardRelayNeedsExpose } from './e011-wildcard-relay-needs-expose.js';
import { openIngressWithPublishing } from './e012-open-ingress-with-publishing.js';
import { gpuNeedsX8664Target } from './e013-gpu-needs-x86-64-target.js';
import { gaussianSplattingNeedsCuda } from './e014-gaussian-splatting-needs-cuda.js';
import { reservedProgramName } from './e015-reserved-program-name.js';
import { reservedProgramPriority } from './e016-reserved-program-priority.js';
import { unknownProgramDependency } from './e017-unknown-program-dependency.js';
import { programDependencyCycle } from './e018-program-dependency-cycle.js';
import { heartbeatIntervalBounds } from './e020-heartbeat-interval-bounds.js';
import { providerEnvVarPlaceholder } from './e022-provider-env-var-placeholder.js';
import { meshClientNeedsHostUrl } from './e023-mesh-client-needs-host-url.js';
import { criticalSlotOff } from './e024-critical-slot-off.js';
import { publishingNeedsRelay } from './e025-publishing-needs-relay.js';
import { privilegedPort } from './e026-privileged-port.js';
import { pgvectorDimensionLimit } from './e027-pgvector-dimension-limit.js';
import { conflictingExceptionRuntimes } from './e028-conflicting-exception-runtimes.js';
import { exceptionShadowsBaselinePath } from './e029-exception-shadows-baseline-path.js';
import { memoryLimitTooLow } from './e030-memory-limit-too-low.js';
import { publishingNeedsSovereignMesh } from './e031-publishing-needs-sovereign-mesh.js';
import { commandNotAbsolute } from './e032-command-not-absolute.js';
import { ambiguousSecretSource } from './e033-ambiguous-secret-source.js';
import { malformedExceptionVolume } from './e034-malformed-exception-volume.js';
import { malformedUrl } from './e035-malformed-url.js';
import { unavailableInThisBuild } from './e036-unavailable-in-this-build.js';
import { malformedPubkey } from './e037-malformed-pubkey.js';
import { meshRegistryConnection } from './e039-mesh-registry-connection.js';
import { unconfinedAgentsNeedAudit } from './e042-unconfined-agents-need-audit.js';
import { providerBaseUrlVariableClash } from './e044-provider-base-url-variable-clash.js';
import { malformedEgressEntry } from './e045-malformed-egress-entry.js';
import { agentMemoryAboveContainer } from './e046-agent-memory-above-container.js';
import { namespacesExceptionNeedsAudit } from './e047-namespaces-exception-needs-audit.js';
import { exceptionDevicesWithoutKubernetesForm } from './e048-exception-devices-without-kubernetes-form.js';
import { exceptionVolumeWithoutKubernetesForm } from './e049-exception-volume-without-kubernetes-form.js';
import { malformedAdvertiseUrl } from './e050-malformed-advertise-url.js';
import { malformedPolicyRule } from './e051-malformed-policy-rule.js';
import { policyProviderUndeclared } from './e052-policy-provider-undeclared.js';
import { agentProfileSecretEnv } from './e053-agent-profile-secret-env.js';
import { agentProfileProviderUndeclared } from './e054-agent-profile-provider-undeclared.js';
import { agentProfileLimitAboveSandbox } from './e055-agent-profile-limit-above-sandbox.js';
import { agentProfileCwdOutsideWorkspace } from './e056-agent-profile-cwd-outside-workspace.js';
import { agentProfileMalformedEgressEntry } from './e057-agent-profile-malformed-egress-entry.js';
import { agentNpmSpecNotExact } from './e058-agent-npm-spec-not-exact.js';
import { agentPackageMalformedAttribute } from './e059-agent-package-malformed-attribute.js';
import { agentPackageDuplicate } from './e060-agent-package-duplicate.js';
import { openRelayIngress } from './w001-open-relay-ingress.js';
import { duplicateProgramPriority } from './w002-duplicate-program-priority.js';
import { readinessProgramNeverRestarts } from './w003-readiness-program-never-restarts.js';
import { providerEnvVarUnset } from './w004-provider-env-var-unset.js';
import { hostUrlIgnored } from './w005-host-url-ignored.js';
import { plaintextRemoteEndpoint } from './w006-plaintext-remote-endpoint.js';
import { unusedIntegration } from './w007-unused-integration.js';
import { integrationEnvVarUnset } from './w008-integration-env-var-unset.js';
import { allowedPubkeysIgnored } from './w009-allowed-pubkeys-ignored.js';
import { exposedRelayOnLoopback } from './w010-exposed-relay-on-loopback.js';
import { strictImmutableDisabled } from './w011-strict-immutable-disabled.js';
import { auditAcknowledgedWithoutPrivilege } from './w012-audit-acknowledged-without-privilege.js';
import { meshHostKeysIgnored } from './w014-mesh-host-keys-ignored.js';
import { meshHostWithoutMembers } from './w015-mesh-host-without-members.js';
import { agentsUnconfined } from './w016-agents-unconfined.js';
import { egressAllowsInternalAddress } from './w017-egress-allows-internal-address.js';
import { providerBaseUrlIgnored } from './w018-provider-base-url-ignored.js';
import { namespacesExceptionWithoutKubernetesForm } from './w019-namespaces-exception-without-kubernetes-form.js';
import { exceptionVolumeIsHostPath } from './w020-exception-volume-is-host-path.js';
import { policyRuleUnreachable } from './w021-policy-rule-unreachable.js';
import { policyRuleShadowed } from './w022-policy-rule-shadowed.js';
import { agentPackageInDefaultSet } from './w023-agent-package-in-default-set.js';

/** Every active rule, errors then warnings, each in id order. Add a rule here, with its doc page and fixtures (the drift test checks). */
export const ruleCatalogue: readonly Rule[] = [
  externalAdapterNeedsFederation,
  externalAdapterNeedsEndpoint,
  credentialsInUrl,
  secretInEnvironment,
  secretLookingValue,
  portCollision,
  featureNeedsException,
  exceptionWithoutFeature,
  privilegedExceptionNeedsAudit,
  relayNeedsSovereignMesh,
  wildcardRelayNeedsExpose,
  openIngressWithPublishing,
  gpuNeedsX8664Target,
  gaussianSplattingNeedsCuda,
  reservedProgramName,
  reservedProgramPriority,
  unknownProgramDependency,
  programDependencyCycle,
  heartbeatIntervalBounds,
  providerEnvVarPlaceholder,
  meshClientNeedsHostUrl,
  criticalSlotOff,
  publishingNeedsRelay,
  privilegedPort,
  pgvectorDimensionLimit,
  conflictingExceptionRuntimes,
  exceptionShadowsBaselinePath,
  memoryLimitTooLow,
  publishingNeedsSovereignMesh,
  commandNotAbsolute,
  ambiguousSecretSource,
  malformedExceptionVolume,
  malformedUrl,
  unavailableInThisBuild,
  malformedPubkey,
  meshRegistryConnection,
  unconfinedAgentsNeedAudit,
  providerBaseUrlVariableClash,
  malformedEgressEntry,
  agentMemoryAboveContainer,
  namespacesExceptionNeedsAudit,
  exceptionDevicesWithoutKubernetesForm,
  exceptionVolumeWithoutKubernetesForm,
  malformedAdvertiseUrl,
  malformedPolicyRule,
  policyProviderUndeclared,
  agentProfileSecretEnv,
  agentProfileProviderUndeclared,
  agentProfileLimitAboveSandbox,
  agentProfileCwdOutsideWorkspace,
  agentProfileMalformedEgressEntry,
  agentNpmSpecNotExact,
  agentPackageMalformedAttribute,
  agentPackageDuplicate,
  openRelayIngress,
  duplicateProgramPriority,
  readinessProgramNeverRestarts,
  providerEnvVarUnset,
  hostUrlIgnored,
  plaintextRemoteEndpoint,
  unusedIntegration,
  integrationEnvVarUnset,
  allowedPubkeysIgnored,
  exposedRelayOnLoopback,
  strictImmutableDisabled,
  auditAcknowledgedWithoutPrivilege,
  meshHostKeysIgnored,
  meshHostWithoutMembers,
  agentsUnconfined,
  egressAllowsInternalAddress,
  providerBaseUrlIgnored,
  namespacesExceptionWithoutKubernetesForm,
  exceptionVolumeIsHostPath,
  policyRuleUnreachable,
  policyRuleShadowed,
  agentPackageInDefaultSet,
];

/** Ids that once existed; they stay listed so they are never reused. `retired` says why and what replaced them. */
export const retiredRules: readonly RetiredRule[] = [
  {
    id: 'E019',
    alias: 'dependency-starts-later',
    retired: "depends_on orders the start itself: the generated supervisord.conf raises a programme's priority past its dependencies'",
  },
  {
    id: 'E021',
    alias: 'seal-timeout-bounds',
    retired: 'the schema itself bounds bootstrap.seal_timeout_sec to 10..3600, so an out-of-range value is a SCHEMA out-of-range error at that key',
  },
];
