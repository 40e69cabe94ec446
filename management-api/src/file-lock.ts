// A lock the processes of one machine share (the box registry, the IP-forward guard, the agent uid claims): an exclusive
// SQLite transaction on a file, so what is held is the kernel's record lock on it. The kernel drops
// it the moment its holder ends, however it ends, so there is no holder pid to check and no stale
// lock to take over. Locks made of a file created with O_EXCL had both races: a waiter that read
// the file just as its holder removed it failed (ENOENT), and two waiters that both found a dead
// holder could each remove the other's fresh lock and both go on.
import { closeSync, constants, lstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';

/** How often a waiter tries again: the holders keep it for a few milliseconds. */
const RETRY_MS = 10;

/**
 * Take the lock of `file` (created 0600 when missing), waiting up to `waitMs` for another holder,
 * in this process or another, to release it. Resolves to the release, or to undefined once
 * `waitMs` has passed without getting it.
 */
export async function takeFileLock(file: string, waitMs: number): Promise<(() => void) | undefined> {
  // SQLite opens the file by its name, following links: only a directory no one else may write
  // to ensures the name stays the file made here, never a link planted to make it write elsewhere.
  const dir = path.dirname(file);
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0)
    throw new Error(
      `${dir} must be a directory of this user that no one else may write to, to hold the lock ${path.basename(file)}: remove it or make it so (chmod go-w)`,
    );
  closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  // No busy timeout: SQLite would wait inside a synchronous call, holding up this process's event loop.
  const db = new Database(file, { timeout: 0 });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      db.exec('BEGIN EXCLUSIVE');
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        db.exec('COMMIT');
        db.close();
      };
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') {
        db.close();
        throw err;
      }
    }
    if (Date.now() >= deadline) {
      db.close();
      return undefined;
    }
    await sleep(RETRY_MS);
  }
}
