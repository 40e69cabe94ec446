// Tar entries built byte by byte for the files API's tests (never by the code under test), so any name, type or size can be written, the malformed ones included.

/** A ustar header: `type` '0' a file, '5' a directory, '2' a symbolic link (to `linkname`); the size says what data follows. */
export function ustarHeader(name: string, type = '0', size = 0, mode = 0o644, linkname = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100);
  h.write(`${mode.toString(8).padStart(7, '0')}\0`, 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write(linkname, 157, 100);
  h.write('ustar\u000000', 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** The zeros after an entry's data, to its 512-byte boundary. */
export const ustarPadding = (size: number): Buffer => Buffer.alloc((512 - (size % 512)) % 512);

/** The two zero blocks that end a tar. */
export const USTAR_END = Buffer.alloc(1024);
