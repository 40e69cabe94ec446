// Where external-pg finds its connection string (a named variable or a 0600 file), and how pg errors are classified.
import { readFileSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { AdapterInputError, AdapterUnavailableError } from '../adapter-errors.js';
import type { AdapterContext } from '../adapter.js';
import { scrubSecrets } from '../../secrets/redact.js';

/**
 * The connection string, read from the variable named by `integrations.memory.connection_env` or
 * from the file `connection_file`. Errors name the variable or file, never the value.
 */
export function connectionString(context: Pick<AdapterContext, 'manifest' | 'env'>, logger?: Logger): string {
  const { connection_env: envName, connection_file: file } = context.manifest.integrations.memory;
  if (envName) {
    const value = context.env[envName]?.trim();
    if (!value) throw new Error(`integrations.memory.connection_env names ${envName}, but that variable is empty or not set in the API's environment`);
    return value;
  }
  if (file) {
    let value: string;
    try {
      value = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new Error(`cannot read integrations.memory.connection_file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    // A world- or group-readable secret still works (mounted secrets often are 0644), but is worth a warning.
    if ((statSync(file).mode & 0o077) !== 0) logger?.warn({ event: 'SecretFileTooOpen', file }, `${file} is readable by other users; make it mode 0600`);
    if (!value) throw new Error(`integrations.memory.connection_file ${file} is empty`);
    return value;
  }
  throw new Error('adapters.memory = "external-pg" needs integrations.memory.connection_env or connection_file');
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
