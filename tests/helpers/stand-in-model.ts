// The server half of the model stand-ins (Anthropic Messages, OpenAI Responses): 127.0.0.1, every request recorded, JSON and SSE answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stand-in received it. */
export interface ModelCall {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: Record<string, unknown> | undefined;
  body: string;
}

/** What a route answers: a JSON document, or a stream of server-sent events. */
export type ModelAnswer = { status?: number; json: unknown } | { status?: number; events: Array<{ event?: string; data: unknown }> };

/** A running stand-in. */
export interface StandInModel {
  url: string;
  port: number;
  calls: ModelCall[];
  close(): Promise<void>;
}

/** Called with each request before it is answered; the answer waits for it (a test looks at the waiting agent meanwhile). */
export type BeforeAnswer = (call: ModelCall) => Promise<void> | void;

/** Serve `answer` on 127.0.0.1, recording every request before it is answered. A throw is a 500 naming it. */
export async function serveModel(answer: (call: ModelCall) => ModelAnswer, beforeAnswer?: BeforeAnswer): Promise<StandInModel> {
  const calls: ModelCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, unknown> | undefined;
      try {
        json = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      const call: ModelCall = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, json, body };
      calls.push(call);
      let reply: ModelAnswer;
      try {
        await beforeAnswer?.(call);
        reply = answer(call);
      } catch (err) {
        reply = { status: 500, json: { type: 'error', error: { type: 'api_error', message: `stand-in: ${(err as Error).message}` } } };
      }
      if ('events' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const e of reply.events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
        res.end();
      } else {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.json));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The credential a call carried, in whichever header its client sends. */
export function credentialOf(call: ModelCall): string | undefined {
  const key = call.headers['x-api-key'];
  if (typeof key === 'string') return key;
  return /^Bearer (.+)$/i.exec(call.headers.authorization ?? '')?.[1];
}

/** The agent's working directory as its CLI describes it to the model (its prompt's environment section). */
export function workingDirectoryIn(text: string): string | undefined {
  return (
    /Primary working directory: (\/[^\s"\\]+)/.exec(text)?.[1] ??
    // Codex: <cwd>/path</cwd> in its environment context.
    /<cwd>(\/[^<"\\]+)<\/cwd>/.exec(text)?.[1]
  );
}
