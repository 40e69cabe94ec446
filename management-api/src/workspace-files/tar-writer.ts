// A tar written straight into the batches a pack sends (in the tar worker): headers encoded by node-tar's Header and Pax, a file's body read from its descriptor into the batch itself, zero padding, two zero blocks at the end.
import { readSync } from 'node:fs';
import { Header, type HeaderData } from 'tar/header';
import { Pax } from 'tar/pax';
import { encodeName, hasEscapedBytes } from '../fs-names.js';

const BLOCK = 512;

/** The error code of a pack that met a file made shorter while it was read. */
export const FILE_SHRANK = 'ESHRANK';

function fileShrank(name: string, got: number, size: number): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(
    `"${name}" was made shorter while it was packed (${got} of its ${size} bytes were there): the tar is cut off there, never padded with bytes the file did not hold; try again`,
  );
  err.code = FILE_SHRANK;
  return err;
}

/** The header field's stand-in for a name carried in a long-name record: ASCII, short enough for the field, a directory's trailing `/` kept. */
function standIn(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/gu, '_');
  return ascii.length <= 100 ? ascii : `${ascii.slice(0, ascii.endsWith('/') ? 99 : 100)}${ascii.endsWith('/') ? '/' : ''}`;
}

/** What an entry's header says: the fields the walk knows. */
export interface EntryHeader {
  path: string;
  type: 'File' | 'Directory' | 'SymbolicLink';
  mode: number;
  mtime: Date;
  size?: number;
  linkpath?: string;
}

/**
 * A piece of a file written by TarWriter.parts: `length` bytes of `fd` at `offset`, or `zeros` zero
 * bytes. With `check`, the piece (at most one batch long) is read whole and passed to it before any
 * of it is sent: a check that throws ends the pack with none of the piece's bytes sent.
 */
export type FilePart = { fd: number; offset: number; length: number; check?: (bytes: Uint8Array) => void } | { zeros: number };

/**
 * Why not a pack stream: a stream takes each file's bytes as a buffer of its own and a batch is
 * then made by copying them again, which cost as much as reading them (a third of a download's
 * time). Here every byte is written once, where it is sent from: the kernel copies a file's pages
 * into the batch, and the batch itself is handed to the API's thread.
 */
export class TarWriter {
  #batch: Buffer;
  #at = 0;

  constructor(
    /** Takes a full (or the last) batch; resolves once it may be sent, and owns the buffer from then on. */
    private readonly send: (batch: Buffer) => Promise<void>,
    /** The next empty batch to write into (its whole length is used). */
    private readonly take: () => Buffer,
  ) {
    this.#batch = take();
  }

  /** An entry without a body (a directory, a link). */
  async entry(header: EntryHeader): Promise<void> {
    await this.#header({ ...header, size: 0 });
  }

  /**
   * A regular file of `size` bytes read from `fd` (its position at the start): one that grows while
   * read is cut to `size` (the header said it first; what it held then is what is packed). One that
   * shrinks fails the pack ({@link FILE_SHRANK}): its header is sent, and padding it with zeros would
   * make a tar that reads whole with bytes the file never held, so the tar is cut off instead (a
   * failed transfer for its reader, as GNU tar fails over such a file).
   */
  async file(header: EntryHeader & { size: number }, fd: number): Promise<void> {
    await this.#header(header);
    let left = header.size;
    while (left > 0) {
      if (this.#at === this.#batch.length) await this.#flush();
      const want = Math.min(left, this.#batch.length - this.#at);
      const got = readSync(fd, this.#batch, this.#at, want, null);
      if (got === 0) throw fileShrank(header.path, header.size - left, header.size);
      this.#at += got;
      left -= got;
    }
    await this.#zeros((BLOCK - (header.size % BLOCK)) % BLOCK);
  }

  /**
   * A regular file whose bytes are `parts` in order, their lengths adding up to its size: ranges of
   * open descriptors read where they are (a snapshot's chunks in the store's packs), or runs of
   * zeros (its holes).
   */
  async parts(header: EntryHeader & { size: number }, parts: ReadonlyArray<FilePart>): Promise<void> {
    await this.#header(header);
    for (const part of parts) {
      if ('zeros' in part) {
        await this.#zeros(part.zeros);
        continue;
      }
      if (part.check) {
        await this.#checkedPart(part, part.check);
        continue;
      }
      for (let done = 0; done < part.length; ) {
        if (this.#at === this.#batch.length) await this.#flush();
        const got = readSync(part.fd, this.#batch, this.#at, Math.min(part.length - done, this.#batch.length - this.#at), part.offset + done);
        if (got === 0) throw new Error('a pack is shorter than its index says: the snapshot store is damaged');
        this.#at += got;
        done += got;
      }
    }
    await this.#zeros((BLOCK - (header.size % BLOCK)) % BLOCK);
  }

  /**
   * A piece read whole into one batch (the batch so far sent first when the piece does not fit in
   * what is left of it), checked, and only then part of what is sent.
   */
  async #checkedPart(part: { fd: number; offset: number; length: number }, check: (bytes: Uint8Array) => void): Promise<void> {
    if (part.length > this.#batch.length) throw new Error(`a checked piece of ${part.length} bytes is longer than a batch (${this.#batch.length})`);
    if (this.#batch.length - this.#at < part.length) await this.#flush();
    for (let done = 0; done < part.length; ) {
      const got = readSync(part.fd, this.#batch, this.#at + done, part.length - done, part.offset + done);
      if (got === 0) throw new Error('a pack is shorter than its index says: the snapshot store is damaged');
      done += got;
    }
    check(this.#batch.subarray(this.#at, this.#at + part.length));
    this.#at += part.length;
  }

  /** The end of the archive (two zero blocks), and the last batch sent. */
  async end(): Promise<void> {
    await this.#zeros(2 * BLOCK);
    await this.#flush();
  }

  /**
   * A pax record first when the plain header cannot hold a field (a long or non-ASCII name, a large
   * size). A name or link target that is not UTF-8 (fs-names.ts) goes in a GNU long-name record as
   * its bytes instead: a pax record holds UTF-8 text unless it says hdrcharset=BINARY, which not
   * every reader honours (tar-stream, the box's own upload reader, decodes it as UTF-8 and loses the
   * bytes), while GNU tar, bsdtar, Python's tarfile and tar-stream all read a long-name record as bytes.
   */
  async #header(fields: EntryHeader & { size: number }): Promise<void> {
    const rawPath = hasEscapedBytes(fields.path) ? encodeName(fields.path) : undefined;
    const rawLink = fields.linkpath !== undefined && hasEscapedBytes(fields.linkpath) ? encodeName(fields.linkpath) : undefined;
    if (rawPath) await this.#longName('NextFileHasLongPath', rawPath);
    if (rawLink) await this.#longName('NextFileHasLongLinkpath', rawLink);
    // With a long-name record the header's own field is only a stand-in a reader replaces; it must need no pax path, which would override the record.
    const path = rawPath ? standIn(fields.path) : fields.path;
    const linkpath = rawLink ? standIn(fields.linkpath!) : fields.linkpath;
    // node-tar writes an mtime before 1970 in base-256, which takes only whole seconds (a fraction threw, failing the tar): such an mtime goes in whole seconds.
    const ms = fields.mtime.getTime();
    const mtime = ms < 0 ? new Date(Math.floor(ms / 1000) * 1000) : fields.mtime;
    const data: HeaderData = { path, type: fields.type, mode: fields.mode, mtime, size: fields.size, uid: 0, gid: 0 };
    if (linkpath !== undefined) data.linkpath = linkpath;
    const block = Buffer.alloc(BLOCK);
    if (new Header(data).encode(block, 0))
      await this.#bytes(new Pax({ path: rawPath ? undefined : path, linkpath: rawLink ? undefined : linkpath, size: fields.size, mtime }).encode());
    await this.#bytes(block);
  }

  /** A GNU long-name record ('L' for the next entry's name, 'K' for its link target): `name`'s bytes and a NUL. */
  async #longName(type: 'NextFileHasLongPath' | 'NextFileHasLongLinkpath', name: Buffer): Promise<void> {
    const block = Buffer.alloc(BLOCK);
    new Header({ path: '././@LongLink', type, mode: 0o644, mtime: new Date(0), size: name.length + 1, uid: 0, gid: 0 }).encode(block, 0);
    await this.#bytes(block);
    await this.#bytes(name);
    await this.#zeros(BLOCK - (name.length % BLOCK));
  }

  /** `bytes` into the batches, across as many as they take. */
  async #bytes(bytes: Uint8Array): Promise<void> {
    for (let off = 0; off < bytes.length; ) {
      if (this.#at === this.#batch.length) await this.#flush();
      const n = Math.min(bytes.length - off, this.#batch.length - this.#at);
      this.#batch.set(bytes.subarray(off, off + n), this.#at);
      this.#at += n;
      off += n;
    }
  }

  async #zeros(n: number): Promise<void> {
    for (let left = n; left > 0; ) {
      if (this.#at === this.#batch.length) await this.#flush();
      const k = Math.min(left, this.#batch.length - this.#at);
      this.#batch.fill(0, this.#at, this.#at + k);
      this.#at += k;
      left -= k;
    }
  }

  /** Send what the batch holds, and start a new one (the sent buffer is the receiver's). */
  async #flush(): Promise<void> {
    if (this.#at === 0) return;
    const full = this.#batch.subarray(0, this.#at);
    this.#batch = this.take();
    this.#at = 0;
    await this.send(full);
  }
}
