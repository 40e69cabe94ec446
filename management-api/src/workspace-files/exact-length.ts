// A workspace file streamed under the Content-Length its stat gave: cut off, never ended short, when the agent shrinks it meanwhile.
import { pipeline, Transform, type Readable } from 'node:stream';

/**
 * `source` (the file's bytes 0 to `size` - 1) through a check that all `size` came. A file made
 * shorter while it is read ends its stream early, and an answer ended short of its Content-Length
 * on a connection kept alive leaves the client waiting for the rest until the server's timeouts
 * close it (over a minute): the stream fails instead, and the server destroys the connection at
 * once, so the client sees a cut transfer. A file that grows is cut to `size` by the read itself.
 * Destroying the answer (a client gone) destroys `source` too (pipeline), so its descriptor closes.
 */
export function exactLength(source: Readable, size: number, shown: string): Readable {
  let seen = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      done(seen === size ? null : new Error(`workspace file "${shown}" was made shorter while it was read (${seen} of ${size} bytes)`));
    },
  });
  // The outcome is the answer's own: fastify cuts it on an error, and logs it.
  return pipeline(source, check, () => undefined);
}
