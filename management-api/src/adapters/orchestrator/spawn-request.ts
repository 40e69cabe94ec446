// Checks of what callers ask the orchestrator: spawn requests and grace periods (the adapter may be called without a route in front).
import { AdapterInputError } from '../../adapter-errors.js';
import type { SpawnRequest } from './orchestrator-adapter.js';
import { AUTONOMIES } from '../../policy/policy-types.js';
import { SNAPSHOT_ID } from '../../grammar/snapshot-id.js';
import { AGENT_NAME } from '../../grammar/agent-name.js';

/** The longest grace period terminate accepts. */
export const MAX_GRACE_MS = 10 * 60_000;
const MAX_ARGS = 256;
/** The longest timeout_sec / idle_timeout_sec (a year, as the manifest's). */
export const MAX_DEADLINE_SEC = 31_536_000;
const MAX_TEXT = 8192;

/** Refuse a malformed spawn request with AdapterInputError. */
export function checkSpawnRequest(request: SpawnRequest): void {
  if (!request || typeof request !== 'object') throw new AdapterInputError('a spawn request is an object with name, command and args');
  if (typeof request.name !== 'string' || !AGENT_NAME.test(request.name))
    throw new AdapterInputError(
      `agent name ${JSON.stringify(request.name)} must be 1–64 letters, digits, "_" or "-", starting with a letter or digit (no "."; it separates an agent's memory namespaces)`,
    );
  // `agentbox cp snp_…:PATH` reads a snapshot: an agent of that name could not be reached by name.
  if (SNAPSHOT_ID.test(request.name))
    throw new AdapterInputError(
      `agent name ${JSON.stringify(request.name)} has the form of a snapshot id (snp_ and 12 characters), which commands read as the snapshot: choose another name`,
    );
  if (!isText(request.command) || request.command === '') throw new AdapterInputError('command must be a non-empty string without NUL bytes');
  if (!Array.isArray(request.args) || request.args.length > MAX_ARGS || !request.args.every(isText))
    throw new AdapterInputError(`args must be an array of at most ${MAX_ARGS} strings without NUL bytes`);
  if (request.env !== undefined && (typeof request.env !== 'object' || request.env === null || Array.isArray(request.env)))
    throw new AdapterInputError('env must be an object of strings');
  if (request.cwd !== undefined && typeof request.cwd !== 'string') throw new AdapterInputError('cwd must be a string');
  if (request.autonomy !== undefined && !AUTONOMIES.includes(request.autonomy))
    throw new AdapterInputError(`autonomy must be ${AUTONOMIES.map((a) => JSON.stringify(a)).join(' or ')}`);
  if (request.tty !== undefined && typeof request.tty !== 'boolean') throw new AdapterInputError('tty must be true or false');
  for (const key of ['timeoutSec', 'idleTimeoutSec'] as const) {
    const v = request[key];
    if (v !== undefined && (!Number.isInteger(v) || v < 1 || v > MAX_DEADLINE_SEC))
      throw new AdapterInputError(
        `${key === 'timeoutSec' ? 'timeout_sec' : 'idle_timeout_sec'} must be a whole number of seconds from 1 to ${MAX_DEADLINE_SEC}`,
      );
  }
  if (request.providers !== undefined && (!Array.isArray(request.providers) || !request.providers.every((p) => typeof p === 'string')))
    throw new AdapterInputError('providers must be an array of provider names');
  if (request.allowDomains !== undefined && (!Array.isArray(request.allowDomains) || !request.allowDomains.every((d) => typeof d === 'string')))
    throw new AdapterInputError('allowDomains must be an array of egress entries');
  if (!request.tty && (request.cols !== undefined || request.rows !== undefined))
    throw new AdapterInputError('cols and rows size a terminal: they need tty: true');
}

/** Refuse a grace period that is not a whole number of milliseconds between 0 and {@link MAX_GRACE_MS}. */
export function checkGraceMs(graceMs: number): void {
  if (!Number.isInteger(graceMs) || graceMs < 0 || graceMs > MAX_GRACE_MS) throw new AdapterInputError(`graceMs must be an integer from 0 to ${MAX_GRACE_MS}`);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TEXT && !value.includes('\u0000');
}
