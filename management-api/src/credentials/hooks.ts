// The hooks an orchestrator calls around an agent's life for its credentials (a type only, so adapters can name it without importing the implementation).
import type { Autonomy } from '../policy/policy-types.js';

/**
 * What the local orchestrator calls around an agent's life. The process manager knows nothing of
 * tokens: it asks for the agent's variables before the spawn and revokes after the exit.
 */
export interface AgentCredentialHooks {
  /** Throw AdapterInputError when the command, args or env of a spawn request carry the operator key. */
  check(request: { command: string; args: readonly string[]; env?: Readonly<Record<string, string>> }): void;
  /**
   * Issue agent `id`'s token (carrying its [policy] autonomy, when the spawn set one, and the
   * providers its profile allows: only theirs are announced, and the broker refuses the others);
   * the variables to add to its environment.
   */
  issue(agent: { id: string; name: string; autonomy?: Autonomy; providers?: readonly string[] }): Record<string, string>;
  /** The agent has exited or is being terminated: its token stops working. */
  revoke(id: string): void;
}
