// The temporaries the box makes in agents' workspaces (the files API's writes, the builds of forks and restores), each recorded under the box's state before it is made: what a killed API leaves, the next start removes (temporary-sweep.ts).
import { randomBytes } from 'node:crypto';
import { mkdirSync, unlinkSync, writeFileSync, type BigIntStats } from 'node:fs';
import { readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { namePrefix } from '../fs-names.js';
import { MAX_TREE_DEPTH } from './tree-depth.js';

/**
 * Why: a PUT writes `.<name>.<random>.tmp` beside its file, a tar upload stages into
 * `.abx-upload-<random>`, a fork or a restore builds into `.abx-fork-`/`.abx-restore-<random>`;
 * each removes its own on every failure, but not when the process is killed (kill -9, the OOM
 * killer) midway, and the leftover would stay in the workspace for good, charged to an agent's
 * disk budget or to no one's. A record is a small file, written before the temporary
 * is made and removed once the temporary is gone (renamed into place or removed). Not flushed: a
 * killed process loses no page cache, and a crash of the machine loses a record only with the
 * temporary it names, which was not flushed either. A record cut short by a kill while it was
 * written names nothing made yet (the temporary comes after), and is dropped as unreadable.
 */

/**
 * Which temporary: a PUT's file, a tar upload's staging directory, a fork's build
 * (`.abx-fork-<random>`), or a restore's (`.abx-restore-<random>`, which also stands for the
 * `.abx-replaced-<random>` its working directory is renamed to while the new one goes in). A fork
 * or a restore can write a whole workspace, gigabytes, before a kill; like the others, what it
 * leaves is in the workspace for good without a record, where no agent's disk walk counts it.
 */
export type TemporaryKind = 'file' | 'upload' | 'fork' | 'restore';

/** Where a workspace is, to find the same directory after a restart: its real path under the box's workspace directory, its inode and birth. */
export interface WorkspacePlace {
  /** Relative to the box's workspace directory; '' for that directory itself. */
  dir: string;
  /** st_dev and st_ino, in decimal (64-bit: a number would round them). */
  dev: string;
  ino: string;
  /** Its birth time in ns ('0' where the filesystem keeps none): a directory removed and made again may have the same inode number, never the same birth. */
  born: string;
}

/** One recorded temporary: `name` in the directory `parent` (workspace segments) of the workspace at `workspace`. */
export interface TemporaryRecord {
  kind: TemporaryKind;
  workspace: WorkspacePlace;
  parent: string[];
  name: string;
  /** A restore's only: the working directory it replaces, beside `name` in `parent`. */
  replaces?: string;
  /**
   * A PUT's or an upload's: the directories of `parent` from this index on were made by the write
   * (its missing parents), so a sweep removes those left empty with the temporary. A kill between
   * their mkdir and the record's write (a few microseconds) leaves them unrecorded.
   */
  madeFrom?: number;
}

/** A temporary recorded: `end` once it is gone. */
export interface RecordedTemporary {
  end(): void;
}

/** The name of a PUT's temporary beside `name`: at most 200 bytes of the name, so the whole stays within the kernel's 255 whatever the name. */
export const fileTemporary = (name: string): string => `.${namePrefix(name, 200)}.${randomBytes(6).toString('hex')}.tmp`;

/** The name of a tar upload's staging directory. */
export const uploadStaging = (): string => `.abx-upload-${randomBytes(8).toString('hex')}`;

/** The name of a fork's build, beside the directory it becomes. */
export const forkStaging = (): string => `.abx-fork-${randomBytes(6).toString('hex')}`;

/** The name of a restore's build; the directory it replaces goes aside as {@link replacedAside} of it while it is swapped in. */
export const restoreStaging = (): string => `.abx-restore-${randomBytes(6).toString('hex')}`;

/** Where a restore puts the directory it replaces while the swap is under way: `.abx-replaced-` and the build's random part. */
export const replacedAside = (staging: string): string => staging.replace(/^\.abx-restore-/, '.abx-replaced-');

/** The forms of the names above: a name the sweep removes must still have its kind's. */
const FORMS: Record<TemporaryKind, RegExp> = {
  file: /^\.[^/]+\.[0-9a-f]{12}\.tmp$/,
  upload: /^\.abx-upload-[0-9a-f]{16}$/,
  fork: /^\.abx-fork-[0-9a-f]{12}$/,
  restore: /^\.abx-restore-[0-9a-f]{12}$/,
};

const KINDS = Object.keys(FORMS) as TemporaryKind[];

/** `name` has the form of a temporary of `kind`. */
export const hasTemporaryForm = (kind: TemporaryKind, name: string): boolean => FORMS[kind].test(name);

/**
 * Records temporaries in one workspace: `begin` before `name` is made in the directory `parent`
 * (workspace segments); a restore's names the directory it `replaces`, a write that made parents
 * of its own the index of the first (`madeFrom`).
 */
export interface TemporaryRecorder {
  begin(parent: readonly string[], name: string, kind: TemporaryKind, replaces?: string, madeFrom?: number): RecordedTemporary;
}

/** The place of the workspace open as `real` (stat `st`) under the box's workspace directory `base` (both real paths). */
export const placeOf = (base: string, real: string, st: BigIntStats): WorkspacePlace => ({ dir: path.relative(base, real), ...identityOf(st) });

/** The part of a {@link WorkspacePlace} that tells one directory from another made at the same path. */
export const identityOf = (st: BigIntStats): Omit<WorkspacePlace, 'dir'> => ({ dev: String(st.dev), ino: String(st.ino), born: String(st.birthtimeNs) });

/** The records of the temporaries in flight, one file each in `dir` (under the box's state, which no agent sees). */
export class TemporaryRecords {
  constructor(readonly dir: string) {}

  /** A recorder for the workspace at `place`. */
  in(place: WorkspacePlace): TemporaryRecorder {
    return { begin: (parent, name, kind, replaces, madeFrom) => this.begin(place, parent, name, kind, replaces, madeFrom) };
  }

  /**
   * Record the temporary `name` in `parent` before it is made; `end` once it is gone (renamed or
   * removed). One small write and, at the end, one unlink, both synchronous: together some 30 µs,
   * where the same through the thread pool took 250 µs on a busy box (a 1 MB PUT takes 5 ms), its
   * round trips queued behind the bodies' writes. No fsync (see above).
   */
  begin(workspace: WorkspacePlace, parent: readonly string[], name: string, kind: TemporaryKind, replaces?: string, madeFrom?: number): RecordedTemporary {
    const file = path.join(this.dir, `${randomBytes(8).toString('hex')}.json`);
    const text = JSON.stringify({
      kind,
      workspace,
      parent: [...parent],
      name,
      ...(replaces !== undefined ? { replaces } : {}),
      ...(madeFrom !== undefined ? { madeFrom } : {}),
    } satisfies TemporaryRecord);
    try {
      writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      // The directory is made at start; made again if it went since.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
    }
    let ended = false;
    return {
      end: () => {
        if (ended) return;
        ended = true;
        try {
          unlinkSync(file);
        } catch {
          // Gone already: nothing to sweep.
        }
      },
    };
  }

  /** The records' files, by name (each read with {@link read}); none when the directory is missing. */
  async list(): Promise<string[]> {
    try {
      return (await readdir(this.dir)).filter((n) => n.endsWith('.json')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /** Record `file` of {@link list}, or why it cannot be used (cut short, or not a record's shape). */
  async read(file: string): Promise<TemporaryRecord | { unreadable: string }> {
    let value: unknown;
    try {
      value = JSON.parse(await readFile(path.join(this.dir, file), 'utf8'));
    } catch (err) {
      return { unreadable: (err as Error).message };
    }
    return recordOf(value) ?? { unreadable: 'not the shape of a record' };
  }

  /** Remove record `file`. */
  async drop(file: string): Promise<void> {
    await unlink(path.join(this.dir, file)).catch(() => undefined);
  }
}

/** A segment as the files API takes one: never empty, `.`, `..`, or holding a `/` or NUL. */
const isSegment = (s: unknown): s is string => typeof s === 'string' && s !== '' && s !== '.' && s !== '..' && !/[/\0]/.test(s);

/** `value` as a record when it has a record's shape (the state is the box's own, but a sweep trusts nothing it walks by). */
function recordOf(value: unknown): TemporaryRecord | undefined {
  const r = value as Partial<TemporaryRecord> | null;
  if (typeof r !== 'object' || r === null) return undefined;
  const { kind, workspace: w, parent, name, replaces, madeFrom } = r;
  if (!KINDS.includes(kind as TemporaryKind)) return undefined;
  if (typeof w !== 'object' || w === null || typeof w.dir !== 'string' || ![w.dev, w.ino, w.born].every((n) => typeof n === 'string' && /^\d+$/.test(n)))
    return undefined;
  if (path.isAbsolute(w.dir) || w.dir.split('/').includes('..')) return undefined;
  if (!Array.isArray(parent) || parent.length > MAX_TREE_DEPTH || !parent.every(isSegment)) return undefined;
  if (!isSegment(name) || !hasTemporaryForm(kind!, name)) return undefined;
  // A restore swaps a directory it names; nothing else names one.
  if (kind === 'restore' ? !isSegment(replaces) : replaces !== undefined) return undefined;
  // Only a PUT or an upload makes parents of its own, and only among those it names.
  if (madeFrom !== undefined && (kind === 'restore' || kind === 'fork' || !Number.isInteger(madeFrom) || madeFrom < 0 || madeFrom >= parent.length))
    return undefined;
  return {
    kind: kind!,
    workspace: { dir: w.dir, dev: w.dev, ino: w.ino, born: w.born },
    parent,
    name,
    ...(replaces !== undefined ? { replaces } : {}),
    ...(madeFrom !== undefined ? { madeFrom } : {}),
  };
}
