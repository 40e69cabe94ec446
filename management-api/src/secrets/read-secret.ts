// Reads a secret the manifest names by an environment variable or a file: one precedence, one set of checks, for every integration.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Logger } from 'pino';

/** The largest secret file read; anything bigger is not one token or connection string. */
export const MAX_SECRET_BYTES = 64 * 1024;

/** The secret cannot be used; the message names the manifest key and the variable or file, never the value. */
export class SecretSourceError extends Error {
  override name = 'SecretSourceError';
}

/**
 * What a secret may look like. `token`: one word, no whitespace or control characters (a bearer
 * token). `line`: one non-empty line, spaces allowed (a Postgres `key=value` connection string).
 */
export type SecretShape = 'token' | 'line';

/** Where to read a secret from, as the manifest names it. */
export interface ReadSecretOptions {
  /** The variable: `key` is the manifest key naming it (`integrations.beads.token_env`), `name` its value ('' when unused). */
  env: { key: string; name: string; values: Readonly<Record<string, string | undefined>> };
  /** The file: `key` is the manifest key naming it (`integrations.beads.token_file`), `path` its value ('' when unused). */
  file: { key: string; path: string };
  shape: SecretShape;
  /**
   * A file readable by group or others: `warn` (the default: mounted secrets are often 0444 and
   * cannot be changed from inside the box) logs `openEvent` and uses it; `refuse` fails.
   */
  openFile?: 'warn' | 'refuse';
  /** The event logged for a file that is too open (default `SecretFileOpen`). */
  openEvent?: string;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * The secret, or undefined when neither source is named.
 *
 * Precedence: the file, then the variable. The manifest rule E033 refuses naming both, so this
 * only decides for a manifest that was not validated; the file wins because it is the source
 * whose protection can be checked here (a regular file, its mode), while a variable's value is
 * also in the environment of whatever started the API and cannot be checked at all.
 *
 * Checks: a file must be a regular file (a directory, FIFO or device is refused; a symbolic link
 * to a regular file, as Kubernetes mounts secrets, is followed) of at most {@link MAX_SECRET_BYTES};
 * one trailing newline (`\n` or `\r\n`) is stripped from either source; an empty value, and a
 * value that is not of `shape`, are refused. Read on every call, so a rotated secret is picked up.
 */
export async function readSecret(options: ReadSecretOptions): Promise<string | undefined> {
  const { env, file } = options;
  if (file.path !== '') {
    const where = `${file.key} ${file.path}`;
    return checked(await readSecretFile(options), where, options.shape);
  }
  if (env.name !== '') {
    const raw = env.values[env.name];
    if (raw === undefined || raw === '') throw new SecretSourceError(`${env.key} names ${env.name}, which is not set or empty`);
    return checked(raw, `${env.key} names ${env.name}, whose value`, options.shape);
  }
  return undefined;
}

async function readSecretFile(options: ReadSecretOptions): Promise<string> {
  const { key, path } = options.file;
  const fail = (what: string): never => {
    throw new SecretSourceError(`${key} ${path} ${what}`);
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer before the type check refuses it.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch((err: NodeJS.ErrnoException) =>
    fail(`cannot be read: ${err.code ?? 'error'}`),
  );
  try {
    const st = await handle.stat();
    if (!st.isFile()) fail('is not a regular file (a directory, FIFO or device cannot hold a secret)');
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    if (st.mode & 0o077) {
      if (options.openFile === 'refuse') fail(`is readable by group or others (mode ${mode}); make it 0600`);
      options.logger?.warn(
        { event: options.openEvent ?? 'SecretFileOpen', key, file: path, mode },
        `${key} ${path} is readable by group or others (mode ${mode}); make it 0600`,
      );
    }
    const buffer = Buffer.alloc(MAX_SECRET_BYTES + 1);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > MAX_SECRET_BYTES) fail(`is larger than ${MAX_SECRET_BYTES} bytes; it does not hold one secret`);
    }
    return buffer.subarray(0, size).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** `raw` without one trailing newline, refused when empty or not of `shape`. */
function checked(raw: string, where: string, shape: SecretShape): string {
  const value = raw.replace(/\r?\n$/, '');
  if (value === '') throw new SecretSourceError(`${where} is empty`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a token holding control characters is refused
  if (shape === 'token' && /[\s\x00-\x1f\x7f]/.test(value)) throw new SecretSourceError(`${where} does not hold one token on one line`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a line holding a NUL is refused
  if (shape === 'line' && /[\r\n\x00]/.test(value)) throw new SecretSourceError(`${where} does not hold one line`);
  return value;
}
