// How the agent sandbox shows itself: the API port agents may reach, the start-up warnings, the /health and /v1/meta schema.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AgentSandbox } from './agent-sandbox.js';

/** The TCP port `app` listens on, or undefined before it listens (or on a unix socket). */
export function listeningPort(app: FastifyInstance): number | undefined {
  const address = app.server.listening ? app.server.address() : null;
  return address && typeof address === 'object' ? address.port : undefined;
}

/**
 * Log once at start what the probe found: agents unconfined by the manifest (warning, as rule
 * W016 says at validation), or confinement asked for and impossible here (error: every spawn is
 * refused until the host is fixed).
 */
export function warnWhenUnconfined(sandbox: AgentSandbox, logger: Logger): void {
  const status = sandbox.status();
  if (status.mode === 'unconfined') {
    logger.warn(
      { event: 'AgentsUnconfined', sandbox: status },
      "sandbox.enabled = false: agents run unconfined with the API's own uid and can read its secrets (audit acknowledged)",
    );
  } else if (status.mode === 'unavailable') {
    logger.error({ event: 'SandboxUnavailable', sandbox: status }, `agents cannot be confined on this host, every spawn is refused: ${status.missing}`);
  }
}

/** JSON schema of SandboxStatus for /health and /v1/meta. */
export const sandboxStatusSchema = {
  type: 'object',
  description:
    'agent confinement: confined (Landlock, seccomp and rlimits enforced), unconfined (sandbox.enabled = false), unavailable (enabled but this host cannot enforce it: spawns are refused) or unknown (no local orchestrator probed it)',
  properties: {
    enabled: { type: 'boolean' },
    mode: { type: 'string', enum: ['confined', 'unconfined', 'unavailable', 'unknown'] },
    landlockAbi: { type: 'integer' },
    requiredAbi: { type: 'integer' },
    missing: { type: 'string' },
    namespaces: {
      type: 'object',
      description:
        "sandbox.namespaces and, once probed, whether each agent runs in bubblewrap here (own user, PID, network namespaces), why not, and how /proc is given (fresh, or the outer one read-only where a fresh one cannot be mounted), and whether bwrap's --disable-userns is used",
      properties: {
        setting: { type: 'string', enum: ['auto', 'required', 'off'] },
        active: { type: 'boolean' },
        reason: { type: 'string' },
        proc: { type: 'string', enum: ['fresh', 'ro-bind'] },
        disableUserns: { type: 'boolean' },
        checkedAt: { type: 'string' },
      },
    },
  },
} as const;
