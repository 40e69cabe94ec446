// Server-Sent Events read from a fetch body (a ReadableStream), as the API's output and event streams send them.

/** One dispatched message: its `event` name (default "message"), `data` lines joined, and last `id`. */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/**
 * The messages of an event stream in order, until the body ends. Comments (keep-alives) and
 * `retry:` are skipped; a message without data is not dispatched, as the EventSource spec says.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.search(/\r\n|\r|\n/);
      while (end >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer[end] === '\r' && buffer[end + 1] === '\n' ? end + 2 : end + 1);
        if (line === '') {
          if (data.length) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
          event = '';
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
          else if (field === 'id') id = value;
        }
        end = buffer.search(/\r\n|\r|\n/);
      }
    }
  } finally {
    // Stop the download when the consumer stops early (break, return, an exception).
    await reader.cancel().catch(() => undefined);
  }
}
