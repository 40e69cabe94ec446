// What agents' processes hold open that neither their PSS nor a walk of their directories sees: memory files (memfd), files deleted while open, and inotify instances.
import { readdirSync, readlinkSync, statSync } from 'node:fs';
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
}

/**
 * Why these count. A memfd's pages are memory, but no process's resident set holds them until it
 * maps them: an agent that writes gigabytes into one keeps its PSS at a few MiB. A file it deleted
 * while holding it open keeps its blocks, but no walk of its directories finds it any longer.
 * Both are found through /proc/<pid>/fd: the link names a memfd (`/memfd:NAME (deleted)`) or a
 * deleted file (`PATH (deleted)`), and a stat through the link gives its blocks. A process whose
 * descriptors cannot be listed (gone, or out of reach) holds nothing here.
 */
export async function readHeldFiles(stats: readonly ProcStat[], procRoot = '/proc'): Promise<HeldFile[][]> {
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
      if (++looked % FD_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return out;
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
}

/** Sum `files` (each process's held files) with every file counted once. */
export function heldTotals(files: readonly (readonly HeldFile[])[]): HeldTotals {
  const seen = new Set<string>();
  const totals: HeldTotals = { memfdBytes: 0, deletedBytes: new Map(), inotifyInstances: 0 };
  for (const list of files)
    for (const f of list) {
      if (seen.has(f.key)) continue;
      seen.add(f.key);
      if (f.kind === 'memfd') totals.memfdBytes += f.bytes;
      else if (f.kind === 'inotify') totals.inotifyInstances++;
      else totals.deletedBytes.set(f.dev, (totals.deletedBytes.get(f.dev) ?? 0) + f.bytes);
    }
  return totals;
}
