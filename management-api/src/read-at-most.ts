// Reading a response body no further than a bound: whatever answers may send without end, and what is
// past the bound is never fetched into memory (the transfer is cancelled).

/** The first bytes of `body`, at most `max` of them, and whether it held more; the stream is cancelled either way. */
export async function readAtMost(body: ReadableStream<Uint8Array> | null | undefined, max: number): Promise<{ bytes: Buffer; more: boolean }> {
  if (!body) return { bytes: Buffer.alloc(0), more: false };
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let got = 0;
  let more = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      got += value.byteLength;
      if (got > max) {
        more = true;
        break;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return { bytes: Buffer.concat(parts).subarray(0, max), more };
}
