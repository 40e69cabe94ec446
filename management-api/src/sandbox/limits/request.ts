// A spawn request's limits: the manifest's sandbox.limits, lowered (never raised) by the request.
import { AdapterInputError } from '../../adapter-errors.js';
import { memoryBytes } from '../../grammar/size.js';
import type { AgentLimits, LimitSettings, RequestedLimits } from './budgets.js';

const SIZE = /^[0-9]{1,15}[kmg]?$/;
/** The sized budgets (a string with a unit in the request and the manifest, bytes in the agent's limits). */
const SIZED = [
  ['memory', 'memory_bytes'],
  ['disk', 'disk_bytes'],
] as const;
const KEYS = ['memory', 'cpu_seconds', 'processes', 'disk', 'entries'];

/**
 * The budgets of one agent: the manifest's (`ceiling`; none when absent), each replaced by the
 * request's where that is lower. A request above the manifest, or malformed, is an input error
 * (HTTP 400) naming the key, so the caller learns the ceiling rather than getting it silently.
 */
export function resolveLimits(ceiling: LimitSettings | undefined, requested: RequestedLimits | undefined): AgentLimits {
  const limits: AgentLimits = ceiling ? { memory_bytes: memoryBytes(ceiling.memory), cpu_seconds: ceiling.cpu_seconds, processes: ceiling.processes } : {};
  if (ceiling?.disk !== undefined) limits.disk_bytes = memoryBytes(ceiling.disk);
  if (ceiling?.entries !== undefined) limits.entries = ceiling.entries;
  if (requested === undefined) return limits;
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested))
    throw new AdapterInputError(`limits must be an object with ${KEYS.join(', ')} (any of them)`);
  for (const key of Object.keys(requested)) {
    if (!KEYS.includes(key)) throw new AdapterInputError(`limits.${key} is not a limit a spawn request may set (${KEYS.join(', ')})`);
  }
  for (const [key, field] of SIZED) {
    const value = requested[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !SIZE.test(value))
      throw new AdapterInputError(`limits.${key} ${JSON.stringify(value)} must be a number with an optional unit k, m or g (for example "512m")`);
    const bytes = memoryBytes(value);
    if (bytes < 1) throw new AdapterInputError(`limits.${key} must be more than 0 (for example "512m")`);
    limits[field] = lower(key, bytes, limits[field], ceiling?.[key]);
  }
  for (const key of ['cpu_seconds', 'processes', 'entries'] as const) {
    const value = requested[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new AdapterInputError(`limits.${key} must be a whole number of at least 1`);
    limits[key] = lower(key, value, limits[key], ceiling?.[key]);
  }
  return limits;
}

function lower(key: string, value: number, ceiling: number | undefined, written: string | number | undefined): number {
  if (ceiling !== undefined && value > ceiling)
    throw new AdapterInputError(
      `limits.${key} may only lower the manifest's sandbox.limits.${key} (${JSON.stringify(written)}); ask for at most that, or raise it in agentbox.toml`,
    );
  return value;
}
