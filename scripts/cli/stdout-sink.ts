// The end of a download's pipeline on standard output, which the pipeline must not own.
import { once } from 'node:events';

/**
 * Write every chunk of `source` to stdout, waiting when stdout is full. Why not pass stdout to
 * `pipeline` itself: a pipeline destroys each of its streams with the error when one fails, and a
 * destroyed stdout emits that error, which the command's stdout handler (agentbox.ts) rethrows,
 * ending the process with a stack trace before the failure could be told (a download cut off by
 * the box). Here a failed source only ends the loop, and stdout stays the process's.
 */
export async function stdoutSink(source: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const chunk of source) if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
}
