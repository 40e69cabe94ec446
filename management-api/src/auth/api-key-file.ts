// The management API key: a 0600 file on the state volume, created once with crypto randomness.
import { randomBytes } from 'node:crypto';
import { chmod, link, lstat, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';

/** The key file cannot be used; the message says what to fix. */
export class ApiKeyFileError extends Error {
  override name = 'ApiKeyFileError';
}

/** Shortest key accepted from an existing file (a generated key has 43 characters). */
export const MIN_KEY_LENGTH = 32;

/**
 * Read the API key from `file`, creating it (0600, 256 random bits, base64url) when absent.
 * An existing file must be a regular file owned by this user; group/other permissions are
 * removed (and logged as `ApiKeyPermissionsRepaired`). The key itself is never logged.
 */
export async function ensureApiKey(file: string, logger: Logger): Promise<{ key: string; created: boolean }> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await tightenDirectory(dir, logger);
  const existing = await lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!existing) {
    const created = await createKeyFile(file);
    if (created) {
      logger.info({ event: 'ApiKeyCreated', file }, 'created the API key file');
      return { key: created, created: true };
    }
    // Another process created it between our lstat and link: use theirs.
    return ensureApiKey(file, logger);
  }
  if (!existing.isFile()) throw new ApiKeyFileError(`${file} is not a regular file (a symlink or directory is refused); remove it and restart to generate a new key`);
  const uid = process.getuid?.();
  if (uid !== undefined && existing.uid !== uid) throw new ApiKeyFileError(`${file} is owned by uid ${existing.uid}, not by this process (uid ${uid}); fix its owner`);
  if (existing.mode & 0o077) {
    await chmod(file, 0o600);
    logger.warn({ event: 'ApiKeyPermissionsRepaired', file, previousMode: (existing.mode & 0o777).toString(8) }, 'the API key file was readable by others; set it to 0600');
  }
  const key = (await readFile(file, 'utf8')).trim();
  if (key.length < MIN_KEY_LENGTH || /\s/.test(key)) throw new ApiKeyFileError(`${file} does not hold a usable key (one line of at least ${MIN_KEY_LENGTH} characters); remove it to generate a new one`);
  return { key, created: false };
}

/** Write a fresh key atomically: a private temp file hard-linked into place (fails if the name exists). */
async function createKeyFile(file: string): Promise<string | undefined> {
  const key = randomBytes(32).toString('base64url');
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, key + '\n', { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  } finally {
    await unlink(tmp);
  }
}

async function tightenDirectory(dir: string, logger: Logger): Promise<void> {
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new ApiKeyFileError(`${dir} is not a directory`);
  if (st.mode & 0o077) {
    await chmod(dir, 0o700);
    logger.warn({ event: 'SecretsDirPermissionsRepaired', dir, previousMode: (st.mode & 0o777).toString(8) }, 'the secrets directory was open to others; set it to 0700');
  }
}
