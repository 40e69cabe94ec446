// What the orchestrator's factory is told beyond any slot's context: how the agents it starts are confined, accounted, credentialled and audited.
import type { SandboxContext } from '../../sandbox/sandbox-context.js';
import type { AgentAuditHooks } from '../../sandbox/agent-audit-hooks.js';
import type { AgentCredentialHooks } from '../../credentials/hooks.js';
import type { AgentEgress } from '../../egress/agent-credential.js';
import type { AgentInputHooks } from './agent-input-hooks.js';

/** The orchestrator slot's part of its AdapterContext (every field absent for an orchestrator that starts no agents here). */
export interface OrchestratorContext {
  /** The manifest's `[sandbox]` and the sandbox metrics (agents are confined and accounted by it). */
  sandbox?: SandboxContext;
  /** Per-agent tokens and provider addresses, for an orchestrator that starts agents on this machine. */
  agentCredentials?: AgentCredentialHooks;
  /** The egress proxy agents are pointed at (absent when the sandbox is off or no proxy runs). */
  egress?: AgentEgress;
  /** Told of agents' starts, termination requests and exits as they happen (the audit trail). */
  agentAudit?: AgentAuditHooks;
  /** Told of tty agents waiting at a prompt and of every agent's end (the input requests). */
  agentInput?: AgentInputHooks;
}
