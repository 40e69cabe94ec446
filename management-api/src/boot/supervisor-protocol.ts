// The supervisord event-listener protocol: READY / header line / payload / RESULT, as pure
// parsing functions plus a reader that turns a byte stream into events.
import type { Readable, Writable } from 'node:stream';

/** One event delivered by supervisord to a listener. */
export interface SupervisorEvent {
  /** e.g. PROCESS_STATE_RUNNING, TICK_5. */
  eventName: string;
  /** Header tokens (ver, server, serial, pool, poolserial, eventname, len). */
  headers: Record<string, string>;
  /** Payload tokens (processname, groupname, from_state, pid, expected, …). */
  payload: Record<string, string>;
  /** The payload after its first line: the message of a PROCESS_COMMUNICATION event, else empty. */
  data: string;
}

/** Parse `key:value key:value` tokens (the format of both the header line and the payload's first line). */
export function parseTokens(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const token of line.trim().split(/\s+/)) {
    const i = token.indexOf(':');
    if (i > 0) out[token.slice(0, i)] = token.slice(i + 1);
  }
  return out;
}

/**
 * Read events from supervisord on `input`, acknowledging each on `output` after `handle` ran.
 * Speaks READY first, then `RESULT 2\nOK` per event. Resolves when input ends.
 */
export async function listen(input: Readable, output: Writable, handle: (event: SupervisorEvent) => void | Promise<void>): Promise<void> {
  let buffer = Buffer.alloc(0);
  let header: Record<string, string> | undefined;
  output.write('READY\n');
  for await (const chunk of input) {
    buffer = Buffer.concat([buffer, chunk as Buffer]);
    for (;;) {
      if (!header) {
        const nl = buffer.indexOf(10);
        if (nl < 0) break;
        header = parseTokens(buffer.subarray(0, nl).toString('utf8'));
        buffer = buffer.subarray(nl + 1);
      }
      const len = Number(header['len'] ?? 0);
      if (buffer.length < len) break;
      const body = buffer.subarray(0, len).toString('utf8');
      buffer = buffer.subarray(len);
      const nl = body.indexOf('\n');
      const event: SupervisorEvent = {
        eventName: header['eventname'] ?? '',
        headers: header,
        payload: parseTokens(nl < 0 ? body : body.slice(0, nl)),
        data: nl < 0 ? '' : body.slice(nl + 1),
      };
      header = undefined;
      await handle(event);
      output.write('RESULT 2\nOKREADY\n');
    }
  }
}
