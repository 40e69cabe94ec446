// A test's capture of a directory into a real snapshot store, and what this process has read from disk meanwhile (the capture threads are its own).
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';

/** Bytes this process has read so far: /proc/self/io's rchar. */
export const bytesRead = (): number => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

/** Snapshot the directory `dir` into `store`, as an agent named after it whose own files they are. */
export async function captureDir(store: SnapshotStore, dir: string, options: { maxHoleBytes?: number; maxEntries?: number } = {}) {
  const fd = await open(dir, DIR_FLAGS);
  try {
    return await store.create({
      rootFd: fd.fd,
      ownUid: process.getuid?.() ?? 0,
      agent: { id: `agt_${path.basename(dir)}`, name: path.basename(dir), cwd: path.basename(dir) },
      ...options,
    });
  } finally {
    await fd.close();
  }
}
