// What the app knows about its box, decorated on the fastify instance as `app.agentbox` by the plugin that gathers it once every service has started.
import fp from 'fastify-plugin';
import type { AdapterResolver } from './adapters/resolver.js';
import type { AgentEvents } from './mesh/agent-events.js';
import type { Federation } from './mesh/federation.js';
import type { BoxIdentity } from './mesh/identity.js';
import type { NormalizedManifest } from './manifest/load-manifest.js';
import type { IdleCompaction } from './observability/idle-compaction.js';
import { supervisedPrograms, supervisorSocket, type ProgramsReport } from './probes/supervisor-programs.js';
import type { ReadinessSources } from './probes/readiness-sources.js';
import type { RuntimePaths } from './runtime-paths.js';
import type { AgentSandbox } from './sandbox/agent-sandbox.js';
import type { EgressController } from './egress/controller.js';
import type { AgentListener } from './http/agent-listener.js';
import type { AuditTrail } from './observability/audit-trail.js';
import type { Approvals } from './approvals/approvals-plugin.js';
import type { InputRequestQueue } from './input-requests/queue.js';
import type { SnapshotStore } from './snapshots/snapshot-store.js';
import type { WorkspaceTemporaries } from './workspace-files/temporaries-plugin.js';
import { apiVersion, imageHash } from './version.js';

/** Shared state of one API instance. */
export interface AgentboxState {
  manifest: NormalizedManifest;
  manifestSha256: string;
  paths: RuntimePaths;
  version: string;
  imageHash: string;
  /** Where Prometheus scrapes this box. */
  metricsUrl: string;
  /** The box's Nostr identity (public forms and a signer; the secret is not reachable from here). */
  identity: BoxIdentity;
  /** Signed agent events and approval requests (a no-op without sovereign_mesh and relays). */
  agentEvents: AgentEvents;
  /** The box's part in a mesh (mesh.mode): nothing, a client registered with a host, or a host. */
  federation: Federation;
  resolver: AdapterResolver;
  probes: ReadinessSources;
  clock: () => Date;
  startedAt: Date;
  /** Supervised programmes for /health; undefined when no supervisord runs. */
  programs: () => Promise<ProgramsReport | undefined>;
  /** Returns memory after bursts of requests (observability/idle-compaction.ts). */
  idleCompaction: IdleCompaction;
  /** The agent sandbox: its capability probe for /health and /v1/meta. */
  sandbox: AgentSandbox;
  /** The egress proxy's controller; undefined when the box runs no proxy. */
  egress: EgressController | undefined;
  /** The agents' own listener (its URL is AGENTBOX_API_URL): shown in /v1/meta. */
  agentListener: AgentListener;
  /** Who did what, appended through the events slot (observability/audit-trail.ts). */
  audit: AuditTrail;
  /** The approvals queue: the approver of supervised asks (approvals/queue.ts). */
  approvals: Approvals;
  /** Agents waiting for a person (input-requests/queue.ts). */
  inputRequests: InputRequestQueue;
  /** Workspace snapshots (snapshots/snapshot-store.ts). */
  snapshots: SnapshotStore;
  /** The records of the files API's temporaries in workspaces, and the start's sweep (workspace-files/temporaries-plugin.ts). */
  workspaceTemporaries: WorkspaceTemporaries;
}

declare module 'fastify' {
  interface FastifyInstance {
    agentbox: AgentboxState;
  }
}

/** Options of {@link appStatePlugin}. */
export interface AppStateOptions {
  manifest: NormalizedManifest;
  manifestSha256: string;
  paths: RuntimePaths;
  /** Public URL of the metrics listener's /metrics, for /v1/meta. */
  metricsUrl: string;
  env: Readonly<Record<string, string | undefined>>;
  clock: () => Date;
  /** Source of supervised programmes for /health. Default: supervisord's socket under the run dir. */
  programs?: () => Promise<ProgramsReport | undefined>;
}

/** Gathers what routes see into `app.agentbox`, after the services it names have started; routes and the dashboard depend on it. */
export const appStatePlugin = fp<AppStateOptions>(
  async (app, options) => {
    const { env, paths } = options;
    app.decorate('agentbox', {
      manifest: options.manifest,
      manifestSha256: options.manifestSha256,
      paths,
      version: apiVersion(),
      imageHash: imageHash(env),
      metricsUrl: options.metricsUrl,
      identity: app.identity,
      agentEvents: app.agentEvents,
      federation: app.federation,
      resolver: app.resolver,
      probes: app.probes,
      clock: options.clock,
      startedAt: options.clock(),
      programs: options.programs ?? (() => supervisedPrograms(supervisorSocket(env, paths))),
      idleCompaction: app.idleCompaction,
      sandbox: app.sandbox,
      egress: app.egress,
      agentListener: app.agentListener,
      audit: app.audit,
      approvals: app.approvals,
      inputRequests: app.inputRequests,
      snapshots: app.snapshots,
      workspaceTemporaries: app.workspaceTemporaries,
    });
  },
  {
    name: 'agentbox-state',
    dependencies: [
      'agentbox-identity',
      'agentbox-agent-events',
      'agentbox-federation',
      'agentbox-adapters',
      'agentbox-readiness',
      'agentbox-idle-compaction',
      'agentbox-sandbox',
      'agentbox-egress',
      'agentbox-agent-listener',
      'agentbox-approvals',
      'agentbox-input-requests',
      'agentbox-snapshots',
      'agentbox-workspace-temporaries',
    ],
  },
);
