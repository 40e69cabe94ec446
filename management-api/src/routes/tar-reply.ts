// A pack's tar as a route's answer: an error status while it has sent nothing, then its batches written to the socket as they come.
import type { FastifyReply } from 'fastify';
import type { Packing } from '../workspace-files/tar-pack.js';
import { writeTarResponse } from '../workspace-files/tar-response.js';

/**
 * Wait for the pack's first batch: a pack that fails before it is answered as any failed request
 * is, with its status and message (`failed` turns its error into the one thrown; the stream's
 * error is the same one, heard here, not thrown, until writeTarResponse listens). Then the head,
 * `name`.tar as the download's file name, and the batches as they come.
 */
export async function replyWithTar(
  reply: FastifyReply,
  packing: Packing & { recycle: (batch: Buffer) => void },
  name: string,
  failed: (err: NodeJS.ErrnoException) => Error = (err) => err,
): Promise<FastifyReply> {
  const { stream, started, recycle } = packing;
  const heard = () => undefined;
  stream.on('error', heard);
  await started.catch((err: NodeJS.ErrnoException) => {
    throw failed(err);
  });
  stream.off('error', heard);
  // From here the response is written batch by batch (tar-response.ts says why); fastify still logs it and runs onResponse.
  void reply.type('application/x-tar').header('content-disposition', `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}.tar"`);
  reply.hijack();
  for (const [header, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(header, value);
  reply.raw.writeHead(200);
  writeTarResponse(stream, reply.raw, recycle, (err) => reply.log.warn({ err }, 'tar download cut off: the pack failed after its first bytes'));
  return reply;
}
