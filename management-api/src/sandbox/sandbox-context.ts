// What the local orchestrator's sandbox is made of: the manifest's [sandbox] block, the sandbox metrics and the launcher.
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { AgentSandbox } from './agent-sandbox.js';
import type { LimitMetrics } from './limits/metrics.js';

/**
 * Handed to the orchestrator slot's factory beside its own settings: the orchestrator is the one
 * adapter that starts agents, so it alone sees how they are confined and accounted.
 */
export interface SandboxContext {
  /** `[sandbox]` of the normalized manifest. */
  settings: NormalizedManifest['sandbox'];
  /** Where agent accounting reports (registered in the API's metrics registry). */
  limitMetrics: LimitMetrics;
  /** The launcher every agent is spawned through (confined unless the manifest turns it off). */
  confinement: AgentSandbox;
}
