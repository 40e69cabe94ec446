// An agent's captured output for the CLI: what is kept (JSON), and the live stream (Server-Sent Events) until the agent ends.
import type { AgentRecord } from './agent-api.js';
import { call, refusal } from './agent-api.js';
import type { BoxTarget } from './box-target.js';
import { UserError } from './cli-errors.js';
import { boxFetch } from './box-fetch.js';

/** One chunk of output. */
export interface Chunk {
  seq: number;
  stream: 'stdout' | 'stderr';
  text: string;
}

/** How often a dropped stream is resumed (from the last chunk seen) before giving up. */
const RECONNECTS = 5;

/** The output kept for agent `id`. */
export async function readOutput(target: BoxTarget, id: string): Promise<Chunk[]> {
  const res = await call(target, 'GET', `/v1/agents/${id}/output`);
  if (res.status !== 200) throw refusal(`reading the output of ${id}`, res);
  return res.body['chunks'] as Chunk[];
}

/** Write a chunk where the agent wrote it. */
export function writeChunk(chunk: Chunk): void {
  (chunk.stream === 'stderr' ? process.stderr : process.stdout).write(chunk.text);
}

/**
 * Stream agent `id`'s output after chunk `after` to `onChunk` until the agent ends; resolves with
 * its final record. A connection that drops is resumed where it stopped.
 */
export async function followOutput(target: BoxTarget, id: string, after: number, onChunk: (c: Chunk) => void, signal?: AbortSignal): Promise<AgentRecord> {
  let last = after;
  for (let attempt = 0; ; attempt++) {
    const res = await boxFetch(
      `${target.url}/v1/agents/${id}/output?follow=true&after=${last}`,
      target.key,
      { headers: { accept: 'text/event-stream' }, ...(signal ? { signal } : {}) },
      { where: target.url },
    );
    if (res.status !== 200) {
      const text = await res.text();
      let body: Record<string, unknown> = { message: text };
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // Not JSON: the text is the message.
      }
      throw refusal(`following the output of ${id}`, { status: res.status, body });
    }
    const end = await readEvents(res, (event, data) => {
      if (event === 'output') {
        const chunk = JSON.parse(data) as Chunk;
        last = chunk.seq;
        onChunk(chunk);
        return undefined;
      }
      if (event === 'end') return (JSON.parse(data) as { agent: AgentRecord }).agent;
      if (event === 'error') throw new UserError(`the output stream of ${id} failed: ${(JSON.parse(data) as { message?: string }).message ?? data}`, 1);
      return undefined;
    }).catch((err: unknown) => {
      if ((err as Error).name === 'UserError' || signal?.aborted) throw err;
      return undefined;
    });
    if (end) return end;
    if (attempt >= RECONNECTS) throw new UserError(`the output stream of ${id} kept dropping; \`agentbox logs ${id}\` shows what was kept`, 1);
  }
}

/** Parse the event stream; resolves with the first value `handle` returns, or undefined when the stream ends first. */
async function readEvents<T>(res: Response, handle: (event: string, data: string) => T | undefined): Promise<T | undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length === 0) continue;
      const value = handle(event, data.join('\n'));
      if (value !== undefined) return value;
    }
  }
  return undefined;
}
