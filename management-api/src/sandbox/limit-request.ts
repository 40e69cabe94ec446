// A spawn request's limits: the manifest's sandbox.limits, lowered (never raised) by the request.
import { AdapterInputError } from '../adapters/adapter-errors.js';
import { memoryBytes } from '../manifest/rules/helpers/resources.js';
import type { AgentLimits, LimitSettings, RequestedLimits } from './agent-limits.js';

const MEMORY = /^[0-9]{1,15}[kmg]?$/;

/**
 * The budgets of one agent: the manifest's (`ceiling`; none when absent), each replaced by the
 * request's where that is lower. A request above the manifest, or malformed, is an input error
 * (HTTP 400) naming the key, so the caller learns the ceiling rather than getting it silently.
 */
export function resolveLimits(ceiling: LimitSettings | undefined, requested: RequestedLimits | undefined): AgentLimits {
  const limits: AgentLimits = ceiling ? { memory_bytes: memoryBytes(ceiling.memory), cpu_seconds: ceiling.cpu_seconds, processes: ceiling.processes } : {};
  if (requested === undefined) return limits;
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) throw new AdapterInputError('limits must be an object with memory, cpu_seconds and/or processes');
  for (const key of Object.keys(requested)) {
    if (!['memory', 'cpu_seconds', 'processes'].includes(key)) throw new AdapterInputError(`limits.${key} is not a limit a spawn request may set (memory, cpu_seconds, processes)`);
  }
  if (requested.memory !== undefined) {
    if (typeof requested.memory !== 'string' || !MEMORY.test(requested.memory)) throw new AdapterInputError(`limits.memory ${JSON.stringify(requested.memory)} must be a number with an optional unit k, m or g (for example "512m")`);
    const bytes = memoryBytes(requested.memory);
    if (bytes < 1) throw new AdapterInputError('limits.memory must be more than 0 (for example "512m")');
    limits.memory_bytes = lower('memory', bytes, limits.memory_bytes, ceiling?.memory);
  }
  for (const key of ['cpu_seconds', 'processes'] as const) {
    const value = requested[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new AdapterInputError(`limits.${key} must be a whole number of at least 1`);
    limits[key] = lower(key, value, limits[key], ceiling?.[key]);
  }
  return limits;
}

function lower(key: string, value: number, ceiling: number | undefined, written: string | number | undefined): number {
  if (ceiling !== undefined && value > ceiling) throw new AdapterInputError(`limits.${key} may only lower the manifest's sandbox.limits.${key} (${JSON.stringify(written)}); ask for at most that, or raise it in agentbox.toml`);
  return value;
}
