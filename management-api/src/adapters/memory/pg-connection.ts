// Where external-pg finds its connection string (a named variable or a 0600 file), and how pg errors are classified.
import type { Logger } from 'pino';
import { AdapterInputError, AdapterUnavailableError } from '../../adapter-errors.js';
import type { AdapterContext } from '../adapter.js';
import { scrubSecrets } from '../../secrets/redact.js';
import { readSecret } from '../../secrets/read-secret.js';

/**
 * The connection string, read from the file `integrations.memory.connection_file` or the variable
 * named by `connection_env` (readSecret's precedence: the file first). Errors name the variable or
 * file, never the value; a file readable by others is used but logged as `SecretFileTooOpen`.
 */
export async function connectionString(context: Pick<AdapterContext<'memory'>, 'settings' | 'env'>, logger?: Logger): Promise<string> {
  const { connection_env: envName, connection_file: file } = context.settings;
  const value = await readSecret({
    env: { key: 'integrations.memory.connection_env', name: envName, values: context.env },
    file: { key: 'integrations.memory.connection_file', path: file },
    shape: 'line',
    openEvent: 'SecretFileTooOpen',
    ...(logger ? { logger } : {}),
  });
  if (value === undefined) throw new Error('adapters.memory = "external-pg" needs integrations.memory.connection_env or connection_file');
  return value;
}

/** `host:port/database` of a connection string, for messages: no user, no password. */
export function describeTarget(connection: string): string {
  try {
    const url = new URL(connection);
    return `${url.hostname}:${url.port || '5432'}${url.pathname || '/'}`;
  } catch {
    return 'the configured Postgres server';
  }
}

// SQLSTATE classes of the server's refusals of bad input (data exceptions, constraint violations).
const INPUT_CLASSES = ['22', '23'];

/**
 * A pg failure as an adapter error: bad input stays a client error; anything else (refused or
 * dropped connections, shutdowns, timeouts, server errors) is a backend failure that degrades the slot.
 */
export function pgFailure(err: unknown, operation: string): Error {
  const code = (err as { code?: unknown }).code;
  const message = scrubSecrets((err as Error).message ?? String(err));
  if (typeof code === 'string' && INPUT_CLASSES.includes(code.slice(0, 2))) return new AdapterInputError(`${operation}: ${message}`);
  return new AdapterUnavailableError('memory', `${operation} failed: ${message || (typeof code === 'string' ? code : 'connection error')}`, { cause: err });
}

/** A pgvector literal: `[x1,x2,...]`. */
export function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

/** Parse pgvector's text output back into a Float32Array. */
export function parseVector(text: string): Float32Array {
  return Float32Array.from(JSON.parse(text) as number[]);
}
