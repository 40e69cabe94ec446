// What agents' processes hold open that neither their PSS nor a walk of their directories sees: memory files (memfd), files deleted while open, and inotify instances with their watches.
import { closeSync, openSync, readdirSync, readlinkSync, readSync, statSync } from 'node:fs';
import type { ProcStat } from './proc-stat.js';

/**
 * Descriptors looked at between two turns of the event loop given back: a readlink and, for the
 * few that qualify, a stat, each a few microseconds.
 */
export const FD_SLICE = 16;

/** One file a process holds open that counts against a budget: its identity (device and inode) and its allocated bytes. */
export interface HeldFile {
  /** `dev:ino`: a file held by several descriptors or processes counts once (an inotify instance has none: each descriptor counts). */
  key: string;
  kind: 'memfd' | 'deleted' | 'inotify';
  /** The device it is on (a deleted file counts against the disk of the agent's directories on that device). */
  dev: number;
  /** Blocks allocated × 512: what the file really takes, not its length. */
  bytes: number;
  /** For an inotify instance: its watches, counted up to the most a count needs (see {@link countWatches}). */
  watches?: number;
}

/**
 * Why these count. A memfd's pages are memory, but no process's resident set holds them until it
 * maps them: an agent that writes gigabytes into one keeps its PSS at a few MiB. A file it deleted
 * while holding it open keeps its blocks, but no walk of its directories finds it any longer.
 * Both are found through /proc/<pid>/fd: the link names a memfd (`/memfd:NAME (deleted)`) or a
 * deleted file (`PATH (deleted)`), and a stat through the link gives its blocks. A process whose
 * descriptors cannot be listed (gone, or out of reach) holds nothing here.
 */
export async function readHeldFiles(
  stats: readonly ProcStat[],
  procRoot = '/proc',
  /** Watches an instance is counted up to: one past the budget says all a judgement needs. */
  watchesWanted = Number.POSITIVE_INFINITY,
): Promise<HeldFile[][]> {
  const out: HeldFile[][] = [];
  let looked = 0;
  for (const stat of stats) {
    const held: HeldFile[] = [];
    out.push(held);
    if (stat.state === 'Z') continue;
    const dir = `${procRoot}/${stat.pid}/fd`;
    let fds: string[];
    try {
      fds = readdirSync(dir);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const file = heldFile(`${dir}/${fd}`, `${stat.pid}:${fd}`);
      if (file) held.push(file);
      if (file?.kind === 'inotify') file.watches = await countWatches(`${procRoot}/${stat.pid}/fdinfo/${fd}`, watchesWanted);
      if (++looked % FD_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return out;
}

/** Bytes of an fdinfo file read between two turns of the event loop given back: a few hundred watch lines. */
const FDINFO_CHUNK = 64 * 1024;

/** How each watch line of an inotify fdinfo begins (the descriptor's own lines, `pos:`, `flags:`, `mnt_id:`, `ino:`, never do). */
const WATCH_LINE = Buffer.from('inotify ');

/**
 * The watches of the inotify instance whose fdinfo is `fdinfo`: one line each (`inotify wd:…`),
 * after a few lines about the descriptor. Counting stops past `most`: an instance of a hundred
 * thousand watches is megabytes of text the kernel makes on every read, and the figure only has
 * to show it is over the budget. 0 when the descriptor is gone.
 */
export async function countWatches(fdinfo: string, most: number): Promise<number> {
  let fd: number;
  try {
    fd = openSync(fdinfo, 'r');
  } catch {
    return 0;
  }
  const buf = Buffer.allocUnsafe(FDINFO_CHUNK);
  let watches = 0;
  // How much of WATCH_LINE the current line has matched so far; -1 once it cannot be a watch line. Kept across reads: a line may straddle two.
  let matched = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) return watches;
      for (let i = 0; i < n; i++) {
        const c = buf[i]!;
        if (c === 0x0a) matched = 0;
        else if (matched >= 0 && matched < WATCH_LINE.length) {
          matched = c === WATCH_LINE[matched] ? matched + 1 : -1;
          if (matched === WATCH_LINE.length) watches++;
        }
      }
      if (watches > most) return watches;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } catch {
    return watches;
  } finally {
    closeSync(fd);
  }
}

/** The file behind one descriptor link when it is a memfd, a deleted regular file or an inotify instance; undefined otherwise or when gone. */
function heldFile(link: string, descriptor: string): HeldFile | undefined {
  let target: string;
  try {
    target = readlinkSync(link);
  } catch {
    return undefined;
  }
  // Every anonymous inode shares one inode number: an instance is told by its descriptor only.
  if (target === 'anon_inode:inotify') return { key: descriptor, kind: 'inotify', dev: 0, bytes: 0 };
  // Sockets, pipes and anonymous inodes name no path; a file still linked somewhere is found by the walk (or is not the agent's).
  if (!target.endsWith(' (deleted)')) return undefined;
  const kind = target.startsWith('/memfd:') ? 'memfd' : target.startsWith('/') ? 'deleted' : undefined;
  if (!kind) return undefined;
  try {
    const st = statSync(link);
    // A deleted directory (an agent's cwd removed under it) holds nothing; only files with no name left count.
    if (!st.isFile() || st.nlink !== 0) return undefined;
    return { key: `${st.dev}:${st.ino}`, kind, dev: st.dev, bytes: st.blocks * 512 };
  } catch {
    return undefined;
  }
}

/** What an agent holds, summed over its processes with each file once: memfd bytes, and deleted files' bytes by device. */
export interface HeldTotals {
  memfdBytes: number;
  deletedBytes: Map<number, number>;
  /** Descriptors of inotify instances (one shared by descriptors counts once per descriptor). */
  inotifyInstances: number;
  /** Their watches, summed the same way. */
  inotifyWatches: number;
}

/** Sum `files` (each process's held files) with every file counted once. */
export function heldTotals(files: readonly (readonly HeldFile[])[]): HeldTotals {
  const seen = new Set<string>();
  const totals: HeldTotals = { memfdBytes: 0, deletedBytes: new Map(), inotifyInstances: 0, inotifyWatches: 0 };
  for (const list of files)
    for (const f of list) {
      if (seen.has(f.key)) continue;
      seen.add(f.key);
      if (f.kind === 'memfd') totals.memfdBytes += f.bytes;
      else if (f.kind === 'inotify') {
        totals.inotifyInstances++;
        totals.inotifyWatches += f.watches ?? 0;
      } else totals.deletedBytes.set(f.dev, (totals.deletedBytes.get(f.dev) ?? 0) + f.bytes);
    }
  return totals;
}
