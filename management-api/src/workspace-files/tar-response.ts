// A pack's tar written to an HTTP response batch by batch, each batch handed back to the tar worker once the socket has written it.
import type { ServerResponse } from 'node:http';
import { finished, type Readable } from 'node:stream';

/**
 * Why not `reply.send(stream)`: a piped stream's writes carry no callback, so nothing tells when
 * the socket is done with a batch, and each batch would be new memory for the worker to fault in
 * (see Recycle in tar-pack-protocol.ts). Here each batch is written with a callback that hands it
 * back (`recycle`) once written, and only then: until the write completes the kernel may still be
 * reading it. The response's head must have been written. A pack that fails midway cuts the
 * response (the client sees a chunked body that never ended, not a whole tar); a client that goes
 * away, before or while it is written, calls the pack off. `onCut` hears a failure after the head, for the log.
 */
export function writeTarResponse(stream: Readable, res: ServerResponse, recycle: (batch: Buffer) => void, onCut: (err: Error) => void): void {
  stream.on('data', (batch: Buffer) => {
    const room = res.write(batch, (err) => {
      if (!err) recycle(batch);
    });
    if (!room) {
      stream.pause();
      res.once('drain', () => stream.resume());
    }
  });
  stream.once('end', () => res.end());
  stream.once('error', (err) => {
    onCut(err);
    res.destroy(err);
  });
  // `finished`, not a 'close' listener: a client may have gone while the pack was starting, its 'close' already past.
  finished(res, () => {
    if (!stream.readableEnded) stream.destroy();
  });
}
