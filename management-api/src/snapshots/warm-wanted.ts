// How many warm copies each snapshot should have, kept on the state volume, so that a box started again builds them again without being asked.
import { readFile } from 'node:fs/promises';
import { replaceFileDurably } from '../durable-fs.js';
import { SerialLock } from '../serial-lock.js';
import { SNAPSHOT_ID } from '../grammar/snapshot-id.js';

/** The file's name, in the box's state directory. */
export const WARM_WANTED_FILE = 'warm-wanted.json';

/** What was read: the counts by snapshot id, and why the file was set aside if it could not be used. */
export interface WantedRead {
  wanted: Map<string, number>;
  /** The file is there but not what this box writes (hand-edited, cut short): nothing of it is used. */
  problem?: string;
}

/**
 * The copies wanted, by snapshot: `{"snp_…": N}`, 0600. Only a count is kept, never a copy: a copy
 * is trusted only while the box that built it runs, so a start builds them all again. Writes are
 * made one after another, each the whole map (a few entries), atomically and durably.
 */
export class WarmWanted {
  readonly #serial = new SerialLock();

  constructor(private readonly file: string) {}

  /** The counts saved by the last run; a file that is missing is none, one that is damaged is said, and none of it used. */
  async read(maxPerSnapshot: number): Promise<WantedRead> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { wanted: new Map() };
      return { wanted: new Map(), problem: `cannot read it: ${(err as Error).message}` };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return { wanted: new Map(), problem: `not JSON: ${(err as Error).message}` };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { wanted: new Map(), problem: 'not a JSON object' };
    const wanted = new Map<string, number>();
    for (const [sid, count] of Object.entries(parsed)) {
      if (!SNAPSHOT_ID.test(sid) || !Number.isInteger(count) || (count as number) < 1 || (count as number) > maxPerSnapshot)
        return { wanted: new Map(), problem: `entry ${JSON.stringify(sid)}: ${JSON.stringify(count)} is not a snapshot id with 1 to ${maxPerSnapshot} copies` };
      wanted.set(sid, count as number);
    }
    return { wanted };
  }

  /** Save `wanted` (a pool is never kept at 0: want(sid, 0) forgets it), after any save under way. */
  save(wanted: ReadonlyMap<string, number>): Promise<void> {
    const text = `${JSON.stringify(Object.fromEntries(wanted))}\n`;
    return this.#serial.run(() => replaceFileDurably(this.file, text, 0o600));
  }
}
