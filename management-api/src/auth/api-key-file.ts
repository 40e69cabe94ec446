// The management API key: a 0600 file on the state volume, created once with crypto randomness.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ensureSecretFile, SecretFileError, type SecretKind } from './secret-file.js';

/** The key file cannot be used; the message says what to fix. */
export class ApiKeyFileError extends SecretFileError {
  override name = 'ApiKeyFileError';
}

/** Shortest key accepted from an existing file (a generated key has 43 characters). */
export const MIN_KEY_LENGTH = 32;

const apiKey: SecretKind = {
  label: 'API key',
  createdEvent: 'ApiKeyCreated',
  repairedEvent: 'ApiKeyPermissionsRepaired',
  generate: () => randomBytes(32).toString('base64url'),
  invalid: (key) =>
    key.length < MIN_KEY_LENGTH || /\s/.test(key)
      ? `does not hold a usable key (one line of at least ${MIN_KEY_LENGTH} characters); remove it to generate a new one`
      : undefined,
};

/**
 * Read the API key from `file`, creating it (0600, 256 random bits, base64url) when absent.
 * An existing file must be a regular file owned by this user; group/other permissions are
 * removed (and logged as `ApiKeyPermissionsRepaired`). The key itself is never logged.
 */
export async function ensureApiKey(file: string, logger: Logger): Promise<{ key: string; created: boolean }> {
  try {
    const { value, created } = await ensureSecretFile(file, apiKey, logger);
    return { key: value, created };
  } catch (err) {
    throw err instanceof SecretFileError ? new ApiKeyFileError(err.message) : err;
  }
}
