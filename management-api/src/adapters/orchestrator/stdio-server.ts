// The server side of the stdio orchestrator protocol: JSON-RPC 2.0 lines in, a ProcessManager does the work, lines out.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { AdapterInputError } from '../../adapter-errors.js';
import { PROTOCOL, RPC, toRpcError, type OutputPage, type RpcRequest, type RpcResponse } from './json-rpc.js';
import type { SpawnRequest } from './orchestrator-adapter.js';
import type { ProcessManager } from './process-manager.js';

/** Most chunks one `agent.output` answer carries. */
const PAGE_CHUNKS = 500;
/** Longest wait for new output one `agent.output` call may ask for. */
const MAX_WAIT_MS = 30_000;

type Handler = (params: Record<string, unknown>) => Promise<unknown> | unknown;

/**
 * Serve `manager` on `input`/`output` until `input` ends (the client closed the pipe or died) or
 * `stop` aborts; then end every agent with `closeGraceMs` and resolve. Requests are handled concurrently, so a
 * long `agent.output` wait does not hold up other calls.
 */
export async function serveStdio(
  manager: ProcessManager,
  input: Readable,
  output: Writable,
  logger: Logger,
  options: { closeGraceMs?: number; stop?: AbortSignal } = {},
): Promise<void> {
  const handlers: Record<string, Handler> = {
    initialize: () => ({ protocol: PROTOCOL, server: 'agentbox-stdio-orchestrator', pid: process.pid }),
    ping: () => ({}),
    'agent.spawn': (p) => manager.spawn(p as unknown as SpawnRequest),
    'agent.list': () => ({ agents: manager.list() }),
    'agent.status': (p) => manager.status(text(p, 'id')),
    'agent.terminate': (p) => manager.terminate(text(p, 'id'), p['graceMs'] as number),
    'agent.output': (p) => outputPage(manager, text(p, 'id'), p['after'], p['waitMs']),
  };
  const send = (message: RpcResponse): void => {
    output.write(`${JSON.stringify(message)}\n`);
  };
  const inFlight = new Set<Promise<void>>();
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on('line', (line) => {
    const task = handleLine(line, handlers, send).catch((err: unknown) => logger.error({ err, event: 'StdioServerFailed' }, 'could not answer a request'));
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  });
  options.stop?.addEventListener('abort', () => lines.close(), { once: true });
  await new Promise<void>((resolve) => lines.once('close', resolve));
  const grace = options.closeGraceMs ?? 5_000;
  await manager.closeAll(grace);
  await Promise.allSettled([...inFlight]);
  // A spawn that was in flight during the first round has started since: end it too.
  await manager.closeAll(grace);
}

async function handleLine(line: string, handlers: Record<string, Handler>, send: (m: RpcResponse) => void): Promise<void> {
  if (line.trim() === '') return;
  let request: RpcRequest;
  try {
    request = JSON.parse(line) as RpcRequest;
  } catch {
    return send({ jsonrpc: '2.0', id: null, error: { code: RPC.PARSE_ERROR, message: 'parse error: the line is not JSON' } });
  }
  const id = request && typeof request === 'object' && (typeof request.id === 'number' || typeof request.id === 'string') ? request.id : null;
  if (!request || typeof request !== 'object' || request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
    return send({ jsonrpc: '2.0', id, error: { code: RPC.INVALID_REQUEST, message: 'invalid request: expected {"jsonrpc":"2.0","id":…,"method":…}' } });
  }
  // A notification (no id) gets no answer, even an error one (JSON-RPC 2.0 §4.1).
  const notification = request.id === undefined;
  const handler = Object.hasOwn(handlers, request.method) ? handlers[request.method] : undefined;
  if (!handler) {
    if (!notification) send({ jsonrpc: '2.0', id, error: { code: RPC.METHOD_NOT_FOUND, message: `method not found: ${request.method}` } });
    return;
  }
  const params = request.params ?? {};
  try {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new AdapterInputError('params must be an object');
    const result = await handler(params as Record<string, unknown>);
    if (!notification) send({ jsonrpc: '2.0', id, result: result ?? null });
  } catch (err) {
    if (!notification) send({ jsonrpc: '2.0', id, error: toRpcError(err) });
  }
}

/** Chunks after `after`; when there are none yet and the output goes on, wait up to `waitMs` for some. */
async function outputPage(manager: ProcessManager, id: string, after: unknown, waitMs: unknown): Promise<OutputPage> {
  const log = manager.outputLog(id);
  const from = after === undefined ? 0 : after;
  const wait = waitMs === undefined ? 0 : waitMs;
  if (!Number.isInteger(from) || (from as number) < 0) throw new AdapterInputError('after must be a non-negative integer');
  if (!Number.isInteger(wait) || (wait as number) < 0 || (wait as number) > MAX_WAIT_MS)
    throw new AdapterInputError(`waitMs must be an integer from 0 to ${MAX_WAIT_MS}`);
  if ((wait as number) > 0 && log.since(from as number).length === 0 && !log.ended) await log.changed(AbortSignal.timeout(wait as number));
  // Read `ended` first: a chunk appended between the two reads is then still returned.
  const ended = log.ended;
  const chunks = log.since(from as number).slice(0, PAGE_CHUNKS);
  const last = chunks[chunks.length - 1]?.seq ?? (from as number);
  return { chunks, done: ended && last >= log.lastSeq };
}

function text(params: Record<string, unknown>, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw new AdapterInputError(`${key} must be a string`);
  return value;
}
