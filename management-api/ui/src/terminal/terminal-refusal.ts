// Why the box refused a terminal's WebSocket: the browser hides the HTTP answer to an upgrade, so the agent's record is asked for instead.
import { ApiProblem, call } from '../api.js';
import type { Agent } from '../types.js';

/**
 * A readable reason for a terminal connection that never opened. A refusal before the upgrade
 * (401 no session, 403 another Origin, 404 no such agent, 409 no terminal) reaches the page only
 * as a failed connection, so GET /v1/agents/:id tells which it was: a lost session (401) also
 * takes the page back to the sign-in, as every call does.
 */
export async function explainRefusal(agentId: string): Promise<string> {
  let agent: Agent;
  try {
    ({ agent } = await call<{ agent: Agent }>('GET', `/v1/agents/${encodeURIComponent(agentId)}`));
  } catch (err) {
    if (err instanceof ApiProblem && err.status === 401) return 'Your session has ended: sign in again to attach.';
    if (err instanceof ApiProblem && err.status === 404) return 'The box no longer knows this agent.';
    if (err instanceof ApiProblem && err.status === 0) return 'The box did not answer: check that the management API is running, then attach again.';
    return `The terminal could not be opened, and neither could the agent's record: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!agent.tty) return 'This agent has no terminal (it was started without tty); its output is in the output panel.';
  return (
    "The box refused the terminal's connection. Open the dashboard at the box's own address: a session's WebSocket must come from the box's own origin, " +
    'and a proxy in front of the box must pass WebSocket upgrades with the Host and Origin headers unchanged.'
  );
}
