// Small durability helpers every store uses: full writes, directory fsync, atomic replace of a small file
// (durable, or only atomic for the run directory's files, which every boot writes again).
import { constants, renameSync, writeFileSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** Write all of `buf` at the handle's position (its end, for a file opened to append). */
export async function writeAll(handle: FileHandle, buf: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await handle.write(buf, offset, buf.length - offset, null);
    // A zero-byte write would loop forever; the kernel only does that when the device is full.
    if (bytesWritten === 0) throw Object.assign(new Error('write made no progress'), { code: 'ENOSPC' });
    offset += bytesWritten;
  }
}

/** fsync a directory, so a file created or renamed in it survives a power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replace `file` with `text` atomically and durably (temp file, fsync, rename, directory fsync); private unless `mode` says otherwise. */
export async function replaceFileDurably(file: string, text: string, mode = 0o600): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const handle = await open(tmp, 'w', mode);
  try {
    await writeAll(handle, Buffer.from(text, 'utf8'));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  await syncDirectory(path.dirname(file));
}

/**
 * Replace `file` with `content` atomically (a temp file in the same directory, then rename), not
 * durably: for the run directory's files (the seal, stage B's hints, stage A's validated manifest),
 * which a crash loses with the boot they belong to.
 */
export function replaceFileAtomically(file: string, content: string, mode = 0o644): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, file);
}

/** The errno code of a filesystem error, or the message for anything else (never a path with secrets: paths only). */
export function ioReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ''}` : e.message;
}
