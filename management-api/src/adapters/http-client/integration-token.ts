// The bearer token of an HTTP integration, read from the variable or 0600 file the manifest names.
import { readFile, stat } from 'node:fs/promises';
import type { Logger } from 'pino';

/** Where `[integrations.<slot>]` says the token is (names and paths only, never the token). */
export interface TokenSource {
  token_env: string;
  token_file: string;
}

/** The token cannot be read; the message names the variable or file, never its content. */
export class IntegrationTokenError extends Error {
  override name = 'IntegrationTokenError';
}

/**
 * The token, or undefined when the integration names none. Read at every connect, so a rotated
 * secret is picked up by a reconnect. A token file readable by group or others is used but
 * logged as `IntegrationTokenFileOpen` (mounted secrets are often 0444 and cannot be changed here).
 */
export async function readIntegrationToken(slot: string, source: TokenSource, env: Readonly<Record<string, string | undefined>>, logger?: Logger): Promise<string | undefined> {
  if (source.token_env !== '') {
    const value = env[source.token_env]?.trim();
    if (!value) throw new IntegrationTokenError(`integrations.${slot}.token_env names ${source.token_env}, which is not set or empty`);
    return value;
  }
  if (source.token_file !== '') {
    let text: string;
    try {
      const st = await stat(source.token_file);
      if (st.mode & 0o077) logger?.warn({ event: 'IntegrationTokenFileOpen', slot, file: source.token_file, mode: (st.mode & 0o777).toString(8) }, 'the token file is readable by other users; make it 0600');
      text = await readFile(source.token_file, 'utf8');
    } catch (err) {
      throw new IntegrationTokenError(`integrations.${slot}.token_file ${source.token_file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const value = text.trim();
    if (!value || /\s/.test(value)) throw new IntegrationTokenError(`integrations.${slot}.token_file ${source.token_file} does not hold one token on one line`);
    return value;
  }
  return undefined;
}
