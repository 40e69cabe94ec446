// The agent commands' side of the API: authenticated requests, refusals as user errors, agents named by id, id prefix or name.
import { constants } from 'node:os';
import type { BoxTarget } from './box-target.js';
import { UserError } from './cli-errors.js';
import { boxFetch } from './box-fetch.js';

/** An agent as /v1/agents shows it. */
export interface AgentRecord {
  id: string;
  name: string;
  command: string;
  args: string[];
  state: string;
  pid?: number;
  exitCode?: number;
  signal?: string;
  startedAt: string;
  endedAt?: string;
  reason?: string;
  /** Milliseconds from its start to its end, once ended. */
  durationMs?: number;
  /** The manifest profile it was started from; absent for an ad-hoc spawn. */
  profile?: string;
  tty?: boolean;
  execOf?: string;
}

/** States in which an agent still runs. */
export const LIVE_STATES = new Set(['starting', 'running']);

/** A request to the box with its key; JSON in and out. Unreachable: exit 1. */
export async function call(target: BoxTarget, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await boxFetch(
    target.url + pathname,
    target.key,
    { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
    { where: target.url, hint: 'Is the box running?' },
  );
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { message: text };
  }
  // Sent without a key because none was found: say where it was looked for, the likelier fault than the box's.
  if (res.status === 401 && !target.key)
    parsed['message'] =
      `${String(parsed['message'] ?? '')}; no API key was found at ${target.paths.apiKeyFile}: pass --root DIR (the box's root; \`agentbox boxes\` lists them)`;
  return { status: res.status, body: parsed };
}

/** The box's refusal as an error for the user (exit 1): its code and message. */
export function refusal(what: string, res: { status: number; body: Record<string, unknown> }): UserError {
  const { error, message } = res.body as { error?: string; message?: string };
  return new UserError(`${what}: ${res.status}${error ? ` ${error}` : ''}: ${message ?? JSON.stringify(res.body)}`, 1);
}

/** Every agent the box knows. */
export async function listAgents(target: BoxTarget): Promise<AgentRecord[]> {
  const res = await call(target, 'GET', '/v1/agents');
  if (res.status !== 200) throw refusal('listing agents', res);
  return res.body['agents'] as AgentRecord[];
}

/**
 * The agent `ref` names: an exact id, else a unique id prefix, else a name (when several agents
 * carry it, the one that is not a command exec'd into another, then the one still running).
 * Anything else is a clear error listing the candidates.
 */
export async function resolveAgent(target: BoxTarget, ref: string | undefined): Promise<AgentRecord> {
  if (!ref) throw new UserError('name an agent: its id, a unique prefix of its id, or its name (see `agentbox ps -a`)', 2);
  const agents = await listAgents(target);
  const exact = agents.find((a) => a.id === ref);
  if (exact) return exact;
  const pick = (found: AgentRecord[], how: string): AgentRecord | undefined => {
    if (found.length === 1) return found[0];
    if (found.length === 0) return undefined;
    // A command exec'd into an agent carries that agent's name: the name means the agent itself, running or ended.
    const agentsProper = found.filter((a) => a.execOf === undefined);
    if (agentsProper.length === 1) return agentsProper[0];
    const live = (agentsProper.length > 0 ? agentsProper : found).filter((a) => LIVE_STATES.has(a.state));
    if (live.length === 1) return live[0];
    throw new UserError(
      `"${ref}" is ambiguous: ${how} ${found.length} agents (${found.map((a) => `${a.id} ${a.name} ${a.state}`).join('; ')}); give more of the id`,
      2,
    );
  };
  const byPrefix = pick(
    agents.filter((a) => a.id.startsWith(ref) || a.id.startsWith(`agt_${ref}`)),
    'it starts the id of',
  );
  if (byPrefix) return byPrefix;
  const byName = pick(
    agents.filter((a) => a.name === ref),
    'it is the name of',
  );
  if (byName) return byName;
  throw new UserError(`no agent "${ref}" on ${target.url} (not an id, id prefix or name; see \`agentbox ps -a\`)`, 1);
}

/** The exit code a command that waited for `agent` exits with: the agent's own, 128 + the signal number like a shell, 1 for another failure. */
export function exitCodeOf(agent: AgentRecord): number {
  if (agent.exitCode !== undefined) return agent.exitCode;
  if (agent.signal) return 128 + (constants.signals[agent.signal as keyof typeof constants.signals] ?? 0);
  return agent.state === 'exited' ? 0 : 1;
}
