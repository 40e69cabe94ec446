// Is a backup archive a whole tar before it is unpacked, and what a tar reader's bare error means for it, said naming the file.
import { open } from 'node:fs/promises';

/** A backup archive that is not a whole tar (cut short, corrupted, compressed, not a tar at all). */
export class ArchiveShapeError extends Error {
  override name = 'ArchiveShapeError';
}

const BLOCK = 512;
/** What `packBackup` (tar-stream's finalize) ends every archive with: two blocks of zeros. */
const END_BYTES = 2 * BLOCK;

/** Magic numbers of what a `.tar` is often compressed with before it is sent. */
const COMPRESSED: ReadonlyArray<[string, Buffer]> = [
  ['gzip', Buffer.from([0x1f, 0x8b])],
  ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd])],
  ['xz', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])],
  ['bzip2', Buffer.from('BZh')],
];

/**
 * Refuse the archive `file` unless it has a tar's shape: whole 512-byte blocks, ending with the two
 * zero blocks of tar's end-of-archive marker. Why before unpacking: an archive cut short at a block
 * boundary reads as a valid tar that merely stops, and one cut inside a member is an error the tar
 * reader words without the file ("Unexpected end of data").
 */
export async function checkArchiveShape(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) throw new ArchiveShapeError(`${file} is empty: not a backup archive`);
    const head = Buffer.alloc(Math.min(size, BLOCK));
    await handle.read(head, 0, head.length, 0);
    const compressed = COMPRESSED.find(([, magic]) => head.subarray(0, magic.length).equals(magic));
    if (compressed) throw new ArchiveShapeError(`${file} is ${compressed[0]}-compressed, not a tar: uncompress it first (a backup archive is a plain tar)`);
    if (size % BLOCK !== 0 || size < END_BYTES)
      throw new ArchiveShapeError(`${file} is ${size} bytes, not a whole number of 512-byte tar blocks: it is truncated (cut short in a copy?), or not a tar`);
    const tail = Buffer.alloc(END_BYTES);
    await handle.read(tail, 0, END_BYTES, size - END_BYTES);
    if (tail.some((b) => b !== 0))
      throw new ArchiveShapeError(
        `${file} does not end with tar's end-of-archive marker (1024 zero bytes): it is truncated (cut short in a copy?), or not a whole tar`,
      );
  } finally {
    await handle.close();
  }
}

/** A tar reader's error on `file`, said naming it; `after` is the last member read whole. */
export function tarReadError(file: string, err: Error, after: string | undefined): ArchiveShapeError {
  const where = after === undefined ? 'its first member' : `the member after ${after}`;
  if (err.message === 'Unexpected end of data')
    return new ArchiveShapeError(`${file} ends inside ${where}: it is truncated (cut short in a copy?), not a whole tar`);
  if (err.message.startsWith('Invalid tar header'))
    return new ArchiveShapeError(`${file}: the tar header of ${where} is damaged (${err.message.split('.')[0]}): the archive is corrupted, or not a tar`);
  return new ArchiveShapeError(`${file}: cannot read ${where} (${err.message}): the archive is damaged`);
}
