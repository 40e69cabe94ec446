// A backup's file written and flushed every 8 MiB as it goes, so the box's own fsyncs never wait behind a whole file's dirty pages.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Why: a file written whole and flushed once at its end (the backup's index fsyncs each file) leaves
 * the disk that much to write at once, and every fsync the box makes meanwhile (each event appended
 * waits for one) queues behind it, as copy-sqlite.ts measured for the SQLite stores (a small
 * fdatasync up to 196 ms behind a 400 MiB copy flushed at its end, 5.4 ms with a flush every
 * 8 MiB). The event log's segments, its tree and the other stores' files are written the same way.
 */
export const STEP_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** Writes to a new file, flushed (fdatasync) every STEP_BYTES. */
export class SteppedFile {
  #unflushed = 0;

  private constructor(readonly handle: FileHandle) {}

  /** Create `file` (it must not exist). */
  static async create(file: string, mode = 0o600): Promise<SteppedFile> {
    return new SteppedFile(await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode));
  }

  /** Every byte of `data`, then a flush once STEP_BYTES have gathered. */
  async write(data: Uint8Array): Promise<void> {
    for (let offset = 0; offset < data.length; ) offset += (await this.handle.write(data, offset, data.length - offset)).bytesWritten;
    this.#unflushed += data.length;
    if (this.#unflushed >= STEP_BYTES) {
      await this.handle.datasync();
      this.#unflushed = 0;
    }
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** Copy the regular file `from` to the new file `to` in flushed steps; false when `from` is gone. */
export async function copyFileStepped(from: string, to: string, mode = 0o600): Promise<boolean> {
  const input = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!input) return false;
  try {
    const output = await SteppedFile.create(to, mode);
    try {
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await input.read(buf, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) break;
        await output.write(buf.subarray(0, bytesRead));
      }
    } finally {
      await output.close();
    }
    return true;
  } finally {
    await input.close();
  }
}
