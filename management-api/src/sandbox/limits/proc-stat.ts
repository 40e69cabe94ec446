// Reads of /proc for agent accounting: the process list, each process's stat line and its memory.
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';

/** What accounting needs of one process, from /proc/<pid>/stat. */
export interface ProcStat {
  pid: number;
  /** State letter (R, S, D, Z, …): a zombie has no memory left to read. */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** utime + stime of the process, in clock ticks. */
  ownTicks: number;
  /** cutime + cstime: children it has waited for, in clock ticks. */
  reapedTicks: number;
  /** Start time in clock ticks since boot: with the pid, it names one process (pids are reused). */
  startTime: number;
  /** Resident set in pages (the figure statm gives too). */
  rssPages: number;
  /** Threads of the process: each keeps a list of the children it forked (see proc-children.ts). Absent: not known, read them all. */
  threads?: number;
}

/** Memory of one process in bytes; `pss` equals `rss` where smaps_rollup could not be read. */
export interface ProcMemory {
  rss: number;
  pss: number;
}

/**
 * Clock ticks per second of the times in /proc/<pid>/stat. The kernel reports them in USER_HZ,
 * which is 100 on every architecture Linux exports to user space (sysconf(_SC_CLK_TCK)).
 */
export const CLOCK_TICKS = 100;

// One buffer for every synchronous read (one file at a time on the event loop). stat and
// smaps_rollup are well under 2 KiB; procfs serves them from kernel memory, never from a disk.
// The sampler reads stat lines this way in short slices and smaps_rollup on the thread pool
// (proc-read-async.ts).
const buffer = Buffer.allocUnsafe(4096);

/**
 * The content of a small procfs file, or undefined when the process is gone or out of reach
 * (ENOENT once reaped, ESRCH while exiting, EACCES across users or namespaces).
 */
export function readProcFile(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString('latin1', 0, n);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Every pid in `/proc` now (processes, not threads). */
export function listPids(procRoot = '/proc'): number[] {
  const pids: number[] = [];
  for (const name of readdirSync(procRoot)) {
    const code = name.charCodeAt(0);
    if (code >= 48 && code <= 57) pids.push(Number(name));
  }
  return pids;
}

/** Parse a stat line; undefined when it is not one (an empty read of a vanishing process). */
export function parseStat(pid: number, line: string): ProcStat | undefined {
  // The command name (field 2) may hold spaces and parentheses; fields after the last ')' are plain.
  const close = line.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = line.slice(close + 2).split(' ');
  if (f.length < 22) return undefined;
  const n = (i: number): number => Number(f[i]);
  return {
    pid,
    state: f[0]!,
    ppid: n(1),
    pgrp: n(2),
    session: n(3),
    ownTicks: n(11) + n(12),
    reapedTicks: n(13) + n(14),
    startTime: n(19),
    rssPages: n(21),
    threads: n(17),
  };
}

/** One process's stat, or undefined when it has gone. */
export function readStat(pid: number, procRoot = '/proc'): ProcStat | undefined {
  const line = readProcFile(`${procRoot}/${pid}/stat`);
  return line === undefined ? undefined : parseStat(pid, line);
}

/**
 * RSS and PSS from /proc/<pid>/smaps_rollup; where that is unreadable (the process went, or
 * another user's or namespace's process), the resident pages of its stat line, as RSS and PSS.
 */
export function readMemory(stat: ProcStat, procRoot = '/proc'): ProcMemory {
  if (stat.state === 'Z') return { rss: 0, pss: 0 };
  return memoryFromRollup(stat, readProcFile(`${procRoot}/${stat.pid}/smaps_rollup`)).memory;
}

/**
 * RSS and PSS from the smaps_rollup `text` of the process `stat` describes; `read` is false when
 * the text was unreadable or incomplete, and the figures are then its stat line's resident pages,
 * as RSS and PSS.
 */
export function memoryFromRollup(stat: ProcStat, text: string | undefined): { memory: ProcMemory; read: boolean } {
  const rss = text === undefined ? undefined : kilobytesIn(text, 'Rss:');
  const pss = text === undefined ? undefined : kilobytesIn(text, 'Pss:');
  if (rss !== undefined && pss !== undefined) return { memory: { rss, pss }, read: true };
  const fallback = stat.rssPages * pageSize();
  return { memory: { rss: fallback, pss: fallback }, read: false };
}

/** The `key` line of a smaps_rollup text (`Rss:`, `Pss:`), in bytes; undefined when absent. */
export function kilobytesIn(text: string, key: string): number | undefined {
  const at = text.indexOf(`\n${key}`);
  if (at < 0) return undefined;
  const value = Number.parseInt(text.slice(at + key.length + 1).trimStart(), 10);
  return Number.isFinite(value) ? value * 1024 : undefined;
}

let cachedPageSize: number | undefined;

/** The kernel's page size (4 KiB on x86_64, up to 64 KiB on aarch64), from this process's smaps. */
export function pageSize(): number {
  if (cachedPageSize === undefined) {
    const match = /KernelPageSize:\s+(\d+) kB/.exec(readProcFile('/proc/self/smaps') ?? '');
    cachedPageSize = match ? Number(match[1]) * 1024 : 4096;
  }
  return cachedPageSize;
}
