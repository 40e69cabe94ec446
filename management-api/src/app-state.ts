// What the app knows about its box, decorated on the fastify instance as `app.agentbox`.
import type { AdapterResolver } from './adapters/resolver.js';
import type { AgentEvents } from './mesh/agent-events.js';
import type { Federation } from './mesh/federation.js';
import type { BoxIdentity } from './mesh/identity.js';
import type { NormalizedManifest } from './manifest/load-manifest.js';
import type { IdleCompaction } from './observability/idle-compaction.js';
import type { ProgramsReport } from './probes/supervisor-programs.js';
import type { ReadinessSources } from './probes/readiness-sources.js';
import type { RuntimePaths } from './runtime-paths.js';
import type { AgentSandbox } from './sandbox/agent-sandbox.js';
import type { EgressController } from './egress/controller.js';
import type { AgentListener } from './http/agent-listener.js';
import type { AuditTrail } from './observability/audit-trail.js';

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
  /** Signed agent events (a no-op unless sovereign_mesh.publish_agent_events). */
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
}

declare module 'fastify' {
  interface FastifyInstance {
    agentbox: AgentboxState;
  }
}
