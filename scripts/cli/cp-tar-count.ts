// What a directory's tar written to stdout holds, counted as it passes: the --json report says entries and file bytes as a copy into a directory does.
import { once } from 'node:events';
import { Transform } from 'node:stream';
import * as tar from 'tar-stream';

/** A pass-through that parses the tar going by; `counts()` is what it held once the stream ended. */
export function tarCounter(): { stream: Transform; counts: () => { entries: number; bytes: number } } {
  let entries = 0;
  let bytes = 0;
  const parser = tar.extract();
  parser.on('entry', (header, data, next) => {
    // Counted as an extraction counts (extractTar's report): files, directories, links; bytes of files.
    if (header.type === 'file' || header.type === 'contiguous-file') {
      entries++;
      bytes += header.size ?? 0;
    } else if (header.type === 'directory' || header.type === 'symlink') entries++;
    data.on('end', next).resume();
  });
  // The count is a report, never a reason to fail a copy the bytes of which went out whole.
  parser.on('error', () => undefined);
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (parser.destroyed || parser.write(chunk)) done(null, chunk);
      else once(parser, 'drain').then(() => done(null, chunk), done);
    },
    flush(done) {
      if (parser.destroyed) return done();
      parser.end(undefined);
      // 'finish' is the last chunk parsed (and so the last entry counted); a parser that failed instead closes.
      Promise.race([once(parser, 'finish'), once(parser, 'close')]).then(() => done(), done);
    },
  });
  return { stream, counts: () => ({ entries, bytes }) };
}
