// A request body fed to tar-stream's parser, entry by entry, and given up cleanly: the body is read to its end so the client sees the refusal.
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import * as tar from 'tar-stream';
import { ApiError } from '../errors.js';
import { tarRefused } from './tar-entry-checks.js';
import { decodeName } from '../fs-names.js';

/** One entry as tar-stream hands it out: its header and its data as a stream. */
export type TarEntry = tar.ExtractEvents['entry'][1];

/** The entries of a tar as they arrive, and how to stop reading it. */
export interface TarInput {
  /** The next entry (its header and its data, which must be read or drained before the next), or undefined at the end. */
  next(): Promise<TarEntry | undefined>;
  /** Stop parsing and read the rest of the body away. */
  abandon(): Promise<void>;
}

/**
 * Parse `body` as a tar. The body is not piped: a pipeline would destroy it on the first refused
 * entry, closing the connection before the answer. v7 headers (no ustar magic) are read as the old
 * reader did; their checksum is checked all the same. The library's own errors (a bad checksum, a
 * malformed number, a tar cut short, a pax record over its 4 MiB cap) become refusals.
 */
export function readTar(body: Readable): TarInput {
  // Names read as latin1, one character per byte, so the bytes are there to read back (namesAsBytes).
  const extract = tar.extract({ allowUnknownFormat: true, filenameEncoding: 'latin1' } as Parameters<typeof tar.extract>[0]);
  const onData = (chunk: Buffer) => {
    if (!extract.write(chunk)) body.pause();
  };
  const onEnd = () => extract.end(undefined);
  const onError = (err: Error) => extract.destroy(err);
  extract.on('drain', () => body.resume());
  body.on('data', onData).once('end', onEnd).once('error', onError);
  const entries = extract[Symbol.asyncIterator]();
  return {
    next: async () => {
      const r = await library(entries.next());
      if (r.done) return undefined;
      namesAsBytes(r.value.header);
      return r.value;
    },
    abandon: async () => {
      body.off('data', onData).off('end', onEnd).off('error', onError);
      extract.destroy(null);
      body.resume();
      await finished(body).catch(() => undefined);
    },
  };
}

/**
 * The entry's name and link target as fs-names.ts carries names: any bytes, those that are not
 * UTF-8 escaped. A name from the header or a GNU long-name record was read as latin1 (its bytes);
 * one from a pax record is UTF-8 text as the library decoded it, and where that decoding met bytes
 * that are not UTF-8 (a U+FFFD) the bytes are lost: refused rather than written under another name.
 */
function namesAsBytes(header: TarEntry['header']): void {
  const pax = header.pax as Record<string, string> | undefined;
  if (pax?.['path']) refuseLossy(pax['path'], 'name');
  else header.name = decodeName(Buffer.from(header.name, 'latin1'));
  if (header.linkname == null) return;
  if (pax?.['linkpath']) refuseLossy(pax['linkpath'], 'link target');
  else header.linkname = decodeName(Buffer.from(header.linkname, 'latin1'));
}

function refuseLossy(text: string, what: string): void {
  if (text.includes('\uFFFD'))
    throw tarRefused(
      `entry ${JSON.stringify(text)}: its pax record gives a ${what} that is not UTF-8 (shown with U+FFFD), whose bytes this reader cannot keep; pack such names as GNU long names (GNU tar's default --format=gnu)`,
    );
}

/** Every chunk of an entry's data, with the library's errors (the tar ends inside it) as refusals. */
export async function* entryData(entry: TarEntry, shown: string): AsyncGenerator<Buffer> {
  const it = entry[Symbol.asyncIterator]();
  for (;;) {
    const r = await library(it.next(), `the tar ends inside "${shown}"`);
    if (r.done) return;
    yield r.value as Buffer;
  }
}

/** Drain an entry's data (a link or directory may carry some). */
export async function skipData(entry: TarEntry, shown: string): Promise<void> {
  for await (const _ of entryData(entry, shown));
}

/** A step of the parser: what it throws is a refusal of the tar. */
async function library<T>(step: Promise<T>, why?: string): Promise<T> {
  try {
    return await step;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw tarRefused(why ?? (err as Error).message);
  }
}
