// The bearer token of an HTTP integration (beads, events, pods), read from the variable or 0600 file the manifest names.
import type { Logger } from 'pino';
import type { SlotName } from '../adapter.js';
import { readSecret } from '../../secrets/read-secret.js';

/** Where `[integrations.<slot>]` says the token is (names and paths only, never the token). */
export interface TokenSource {
  token_env: string;
  token_file: string;
}

/**
 * The token, or undefined when the integration names none. Read at every connect, so a rotated
 * secret is picked up by a reconnect. `token_file` wins over `token_env` (see readSecret); a token
 * file readable by group or others is used but logged as `IntegrationTokenFileOpen`.
 */
export function readIntegrationToken(
  slot: SlotName,
  source: TokenSource,
  env: Readonly<Record<string, string | undefined>>,
  logger?: Pick<Logger, 'warn'>,
): Promise<string | undefined> {
  return readSecret({
    env: { key: `integrations.${slot}.token_env`, name: source.token_env, values: env },
    file: { key: `integrations.${slot}.token_file`, path: source.token_file },
    shape: 'token',
    openEvent: 'IntegrationTokenFileOpen',
    ...(logger ? { logger } : {}),
  });
}
