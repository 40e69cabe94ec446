// Every metric the API exports, composed here at the top: the API's own (observability/metrics.ts) and each area's, in one registry.
import { createFederationMetrics, type FederationMetrics } from './mesh/federation-metrics.js';
import { createMeshMetrics, type MeshMetrics } from './mesh/mesh-metrics.js';
import { createLimitMetrics, type LimitMetrics } from './sandbox/limits/metrics.js';
import { createCredentialMetrics, type CredentialMetrics } from './credentials/metrics.js';
import { createEgressMetrics, type EgressMetrics } from './egress/metrics.js';
import { createDashboardMetrics, type DashboardMetrics } from './dashboard/metrics.js';
import { createApprovalMetrics, type ApprovalMetrics } from './approvals/metrics.js';
import { createInputRequestMetrics, type InputRequestMetrics } from './input-requests/metrics.js';
import { createSnapshotMetrics, type SnapshotMetrics } from './snapshots/snapshot-metrics.js';
import { createAuditMetrics, createCoreMetrics, type AuditMetrics, type BuildInfo, type CoreMetrics } from './observability/metrics.js';

/** Every metric the API exports. */
export interface ApiMetrics extends CoreMetrics, AuditMetrics {
  /** Publishing of signed agent events to relays. */
  mesh: MeshMetrics;
  /** Agent accounting: memory, CPU and processes summed over agents, terminations by limit reason. */
  agentLimits: LimitMetrics;
  /** Registration with a mesh host (client) and its members (host). */
  federation: FederationMetrics;
  /** Agent tokens and the provider broker. */
  credentials: CredentialMetrics;
  /** Decisions of the egress proxy. */
  egress: EgressMetrics;
  /** Dashboard streams and sign-ins. */
  dashboard: DashboardMetrics;
  /** The approvals queue: pending requests, decisions by outcome. */
  approvals: ApprovalMetrics;
  /** Agents waiting for a person: open requests, and how they ended. */
  inputRequests: InputRequestMetrics;
  /** Workspace snapshots: operations by outcome, their time, bytes added and freed. */
  snapshots: SnapshotMetrics;
}

/** Create the registry with default process metrics, build info, the API's own metrics and each area's (in this order). */
export function createMetrics(build: BuildInfo): ApiMetrics {
  const core = createCoreMetrics(build);
  const { registry } = core;
  return {
    ...core,
    mesh: createMeshMetrics(registry),
    agentLimits: createLimitMetrics(registry),
    federation: createFederationMetrics(registry),
    credentials: createCredentialMetrics(registry),
    egress: createEgressMetrics(registry),
    dashboard: createDashboardMetrics(registry),
    approvals: createApprovalMetrics(registry),
    inputRequests: createInputRequestMetrics(registry),
    snapshots: createSnapshotMetrics(registry),
    ...createAuditMetrics(registry),
  };
}
