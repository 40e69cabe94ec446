// A spawn request by profile (agents.profiles.<name>) turned into the request the orchestrator runs: what a request may override, and what never.
import { AdapterInputError } from '../../adapter-errors.js';
import { memoryBytes } from '../../grammar/size.js';
import type { Manifest } from '../../manifest/generated/manifest-types.js';
import type { DeepReadonly } from '../../manifest/deep-freeze.js';
import type { RequestedLimits } from '../../sandbox/limits/budgets.js';
import type { SpawnRequest } from './orchestrator-adapter.js';

/** The profiles as the manifest normalizes them. */
export type AgentProfiles = DeepReadonly<Manifest['agents']['profiles']>;

/** POST /v1/agents as the caller writes it: ad hoc (name and command) or by profile. */
export interface SpawnBody extends Omit<SpawnRequest, 'name' | 'command' | 'args' | 'timeoutSec' | 'idleTimeoutSec' | 'providers' | 'allowDomains'> {
  profile?: string;
  name?: string;
  command?: string;
  args?: string[];
  timeout_sec?: number;
  idle_timeout_sec?: number;
}

/**
 * What a request may do to a profile: name the agent, replace its args, choose its working
 * directory, add variables, size its terminal, set its autonomy, and lower its limits and
 * deadlines. What it may never do is the profile's reason to exist: change the command, the
 * providers, the egress allowances or whether it runs on a terminal.
 */
export function resolveSpawn(body: SpawnBody, profiles: AgentProfiles): SpawnRequest {
  const deadlines = { ...optional('timeoutSec', body.timeout_sec), ...optional('idleTimeoutSec', body.idle_timeout_sec) };
  if (body.profile === undefined) {
    if (body.name === undefined || body.command === undefined)
      throw new AdapterInputError('a spawn names the agent and its command ({"name", "command"}), or a profile of agents.profiles ({"profile"})');
    const { timeout_sec: _t, idle_timeout_sec: _i, ...rest } = body;
    return { ...rest, name: body.name, command: body.command, args: body.args ?? [], ...deadlines };
  }
  const profile = Object.hasOwn(profiles, body.profile) ? profiles[body.profile] : undefined;
  if (!profile) {
    const known = Object.keys(profiles);
    throw new AdapterInputError(
      `profile ${JSON.stringify(body.profile)} is not under [agents.profiles] (${known.length ? `profiles: ${known.join(', ')}` : 'the manifest declares none'})`,
    );
  }
  // The profile's own: the command, its providers and egress, and its terminal.
  for (const key of ['command', 'tty'] as const)
    if (body[key] !== undefined)
      throw new AdapterInputError(
        `${key} comes from profile ${body.profile} (agents.profiles.${body.profile}.${key}); leave it out, or spawn ad hoc without "profile"`,
      );
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(profile.env)) if (value !== undefined) env[key] = value;
  for (const [key, value] of Object.entries(body.env ?? {})) {
    if (Object.hasOwn(env, key))
      throw new AdapterInputError(`env.${key} is set by profile ${body.profile}; a request may add variables, not replace the profile's`);
    env[key] = value;
  }
  const limits = lowerOnly(profile.limits, body.limits, body.profile);
  for (const [key, field] of [
    ['timeoutSec', 'timeout_sec'],
    ['idleTimeoutSec', 'idle_timeout_sec'],
  ] as const) {
    const ceiling = profile[field];
    const asked = deadlines[key];
    if (ceiling !== undefined && asked !== undefined && asked > ceiling)
      throw new AdapterInputError(`${field} = ${asked} is above profile ${body.profile}'s ${ceiling}; a request may lower it, never raise it`);
  }
  const cwd = body.cwd ?? profile.cwd;
  return {
    profile: body.profile,
    name: body.name ?? body.profile,
    command: profile.command,
    args: body.args ?? [...profile.args],
    ...(Object.keys(env).length ? { env } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(Object.keys(limits).length ? { limits } : {}),
    ...(body.autonomy !== undefined ? { autonomy: body.autonomy } : {}),
    ...(profile.tty ? { tty: true } : {}),
    ...optional('cols', body.cols),
    ...optional('rows', body.rows),
    providers: [...profile.providers],
    ...(profile.egress.allow_domains.length ? { allowDomains: [...profile.egress.allow_domains] } : {}),
    ...optional('timeoutSec', deadlines.timeoutSec ?? profile.timeout_sec),
    ...optional('idleTimeoutSec', deadlines.idleTimeoutSec ?? profile.idle_timeout_sec),
  };
}

/** The profile's limits, each lowered by the request where it asks (never raised: 400 naming the key). */
function lowerOnly(profile: DeepReadonly<RequestedLimits>, requested: RequestedLimits | undefined, name: string): RequestedLimits {
  const out: RequestedLimits = { ...profile };
  for (const key of ['memory', 'cpu_seconds', 'processes', 'disk', 'entries'] as const) {
    const asked = requested?.[key];
    if (asked === undefined) continue;
    const ceiling = profile[key];
    const amount = (v: string | number): number => (typeof v === 'string' ? memoryBytes(v) : v);
    if (ceiling !== undefined && amount(asked) > amount(ceiling))
      throw new AdapterInputError(
        `limits.${key} = ${JSON.stringify(asked)} is above profile ${name}'s ${JSON.stringify(ceiling)}; a request may lower it, never raise it`,
      );
    (out as Record<string, string | number>)[key] = asked;
  }
  return out;
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
