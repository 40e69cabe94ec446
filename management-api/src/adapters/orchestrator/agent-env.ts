// The environment of an agent process: an allowlist of the parent's variables plus checked, non-secret extras.
import { AdapterInputError } from '../../adapter-errors.js';
import { isSecretName, secretKind } from '../../secrets/secret-names.js';
import { PROXY_VARIABLES } from '../../egress/agent-credential.js';

const RESERVED = new Set<string>(PROXY_VARIABLES);

/**
 * The parent variables an agent inherits — locale, time zone, terminal, identity, search path —
 * and nothing else. The API's own environment holds credentials (tokens, connection strings);
 * an allowlist, unlike a denylist, cannot leak one that nobody thought to list.
 */
export const INHERITED_VARIABLES = [
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'TZ',
  'TERM',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
] as const;

/** The search path an agent gets when the parent has none. */
export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_VARIABLES = 100;
const MAX_VALUE_BYTES = 32 * 1024;

/**
 * The complete environment of an agent: the allowlisted variables of `parent`, then the caller's
 * `requested` variables, then `box` (the agent's id, name and workspace, set by the orchestrator).
 * Requested variables are refused with AdapterInputError when their name or value looks like a
 * secret, or the name is reserved (`AGENTBOX_*`, the proxy variables): secrets reach agents through files they are
 * given, never through an API call that may be logged or replayed.
 */
export function agentEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  requested: Readonly<Record<string, string>> | undefined,
  box: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = parent[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  env['PATH'] ??= DEFAULT_PATH;
  const entries = Object.entries(requested ?? {});
  if (entries.length > MAX_VARIABLES) throw new AdapterInputError(`at most ${MAX_VARIABLES} environment variables may be passed to an agent`);
  for (const [name, value] of entries) {
    checkVariable(name, value);
    env[name] = value;
  }
  return { ...env, ...box };
}

function checkVariable(name: string, value: unknown): void {
  if (!NAME.test(name)) throw new AdapterInputError(`environment variable name ${JSON.stringify(name)} is not a valid name`);
  if (name.toUpperCase().startsWith('AGENTBOX_')) throw new AdapterInputError(`environment variable ${name}: AGENTBOX_* names are reserved for the box`);
  if (RESERVED.has(name)) throw new AdapterInputError(`environment variable ${name} is reserved: the box points agents at its egress proxy itself`);
  if (typeof value !== 'string') throw new AdapterInputError(`environment variable ${name} must be a string`);
  if (value.includes('\u0000') || Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES)
    throw new AdapterInputError(`environment variable ${name} holds a NUL byte or is longer than ${MAX_VALUE_BYTES} bytes`);
  if (isSecretName(name))
    throw new AdapterInputError(
      `environment variable ${name} is named like a secret; secrets are not passed to agents through the API (give the agent a file instead)`,
    );
  const kind = secretKind(value);
  // The value is never echoed: it may be the very secret being refused.
  if (kind) throw new AdapterInputError(`environment variable ${name} appears to hold ${kind}; secrets are not passed to agents through the API`);
}
