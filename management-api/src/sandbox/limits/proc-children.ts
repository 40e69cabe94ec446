// The children of a process from /proc/<pid>/task/<tid>/children: how the sampler walks an agent's tree without listing all of /proc.
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

// Grown when a process has more children than fit: one pid takes at most 8 bytes with its space.
let buffer = Buffer.allocUnsafe(4096);

/** Every byte of a small procfs file (it may need several reads), or undefined when it is gone or out of reach. */
function readWhole(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
    }
    return buffer.toString('latin1', 0, length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function parsePids(text: string | undefined, into: number[]): void {
  if (!text) return;
  for (const word of text.split(' ')) if (word) into.push(Number(word));
}

/**
 * The pids of the children of `pid`, or [] when it has gone. A child is listed under the thread
 * that forked it, so a process of several threads has its list in each thread's file; one of a
 * single thread (most processes) costs one read. `threads` is its thread count from its stat line.
 */
export function readChildren(pid: number, threads: number | undefined, procRoot = '/proc'): number[] {
  const children: number[] = [];
  if (threads === 1) {
    parsePids(readWhole(`${procRoot}/${pid}/task/${pid}/children`), children);
    return children;
  }
  let tids: string[];
  try {
    tids = readdirSync(`${procRoot}/${pid}/task`);
  } catch {
    return children;
  }
  for (const tid of tids) parsePids(readWhole(`${procRoot}/${pid}/task/${tid}/children`), children);
  return children;
}
