// Secrets on the state volume: one 0600 file each in a 0700 directory, created once with crypto
// randomness and reused; symlinks, foreign owners and unusable contents are refused; looser
// permissions are repaired and logged. The secret itself is never logged.
import { chmod, link, lstat, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Logger } from 'pino';

/** The secret file cannot be used; the message says what to fix. */
export class SecretFileError extends Error {
  override name = 'SecretFileError';
}

/** What kind of secret a file holds. */
export interface SecretKind {
  /** Used in messages and event names, e.g. `API key`. */
  label: string;
  /** Event logged when the file is created, e.g. `ApiKeyCreated`. */
  createdEvent: string;
  /** Event logged when its permissions were repaired. */
  repairedEvent: string;
  /** A fresh secret (one line, no whitespace). */
  generate(): string;
  /** Why an existing value is unusable, or undefined when it is fine. */
  invalid(value: string): string | undefined;
}

/** Read the secret from `file`, creating it when absent. */
export async function ensureSecretFile(file: string, kind: SecretKind, logger: Logger): Promise<{ value: string; created: boolean }> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await tightenDirectory(dir, logger);
  const existing = await lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!existing) {
    const created = await createSecretFile(file, kind.generate());
    if (created !== undefined) {
      logger.info({ event: kind.createdEvent, file }, `created the ${kind.label} file`);
      return { value: created, created: true };
    }
    // Another process created it between our lstat and link: use theirs.
    return ensureSecretFile(file, kind, logger);
  }
  if (!existing.isFile())
    throw new SecretFileError(`${file} is not a regular file (a symlink or directory is refused); remove it and restart to generate a new ${kind.label}`);
  const uid = process.getuid?.();
  if (uid !== undefined && existing.uid !== uid)
    throw new SecretFileError(`${file} is owned by uid ${existing.uid}, not by this process (uid ${uid}); fix its owner`);
  if (existing.mode & 0o077) {
    await chmod(file, 0o600);
    logger.warn(
      { event: kind.repairedEvent, file, previousMode: (existing.mode & 0o777).toString(8) },
      `the ${kind.label} file was readable by others; set it to 0600`,
    );
  }
  const value = (await readFile(file, 'utf8')).trim();
  const problem = kind.invalid(value);
  if (problem) throw new SecretFileError(`${file} ${problem}`);
  return { value, created: false };
}

/**
 * Write `value` as the secret at `file`, replacing any existing one atomically (a private temp file
 * renamed into place), in a 0700 directory. For imports an operator asked for explicitly.
 */
export async function replaceSecretFile(file: string, value: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const existing = await lstat(file).catch(() => undefined);
  if (existing && !existing.isFile()) throw new SecretFileError(`${file} is not a regular file (a symlink or directory is refused); remove it first`);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${value}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** Write a fresh secret atomically: a private temp file hard-linked into place (fails if the name exists). */
async function createSecretFile(file: string, value: string): Promise<string | undefined> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${value}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, file);
    return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  } finally {
    await unlink(tmp);
  }
}

async function tightenDirectory(dir: string, logger: Logger): Promise<void> {
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new SecretFileError(`${dir} is not a directory`);
  if (st.mode & 0o077) {
    await chmod(dir, 0o700);
    logger.warn(
      { event: 'SecretsDirPermissionsRepaired', dir, previousMode: (st.mode & 0o777).toString(8) },
      'the secrets directory was open to others; set it to 0700',
    );
  }
}
