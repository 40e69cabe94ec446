// The API's side of the egress control channel: one connection, re-established with backoff, requests answered by id, decisions pushed.
import net from 'node:net';
import { lineReader, type ControlAsk, type ControlDecision, type ControlReply, type ControlRequest } from './control-protocol.js';

type Body<T> = T extends unknown ? Omit<T, 'id'> : never;
/** A request without its id (the client numbers them). */
export type ControlCall = Body<ControlRequest>;
/** A successful reply. */
export type ControlOk = Extract<ControlReply, { ok: true }>;

/** How the client connects and what it is told. */
export interface ControlClientOptions {
  socketPath: string;
  /** The box API key, sent as `hello` on every connection. */
  apiKey: string;
  /** Called on each new connection after hello and subscribe, before it counts as connected (replay state here). */
  onConnect: (client: ControlClient, reply: ControlOk) => Promise<void>;
  onDecision: (decision: ControlDecision['decision']) => void;
  /** The proxy holds a supervised agent's request: answer it (op `answer`) once decided. */
  onAsk?: (ask: ControlAsk['ask']) => void;
  onStateChange: () => void;
  timing?: { requestTimeoutMs?: number; retryMinMs?: number; retryMaxMs?: number };
}

/** A control connection that reconnects until closed. */
export class ControlClient {
  #socket: net.Socket | undefined;
  #connected = false;
  #closed = false;
  #nextId = 1;
  #retryMs: number;
  #timer: NodeJS.Timeout | undefined;
  #lastError = 'not connected yet';
  readonly #waiting = new Map<number, { resolve: (r: ControlReply) => void; timer: NodeJS.Timeout }>();
  readonly #timing: Required<NonNullable<ControlClientOptions['timing']>>;

  constructor(private readonly options: ControlClientOptions) {
    this.#timing = { requestTimeoutMs: 2_000, retryMinMs: 100, retryMaxMs: 2_000, ...options.timing };
    this.#retryMs = this.#timing.retryMinMs;
  }

  /** Whether the channel is up (hello, subscribe and replay done). */
  get connected(): boolean {
    return this.#connected;
  }

  /** Why it is not connected. */
  get lastError(): string {
    return this.#lastError;
  }

  /** Start connecting (returns at once). */
  start(): void {
    this.#connect();
  }

  /** Send one request; rejects when the channel is down, the proxy refuses it, or no answer comes in time. */
  async call(request: ControlCall): Promise<ControlOk> {
    const socket = this.#socket;
    if (!socket || socket.destroyed) throw new Error(`the egress proxy's control socket ${this.options.socketPath} is not connected (${this.#lastError})`);
    const id = this.#nextId++;
    const reply = await new Promise<ControlReply>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve({ id, ok: false, error: `no answer within ${this.#timing.requestTimeoutMs} ms` });
      }, this.#timing.requestTimeoutMs);
      timer.unref();
      this.#waiting.set(id, { resolve, timer });
      socket.write(`${JSON.stringify({ ...request, id })}\n`);
    });
    if (!reply.ok) throw new Error(`egress proxy refused ${request.op}: ${reply.error}`);
    return reply;
  }

  /** Close for good. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#socket?.destroy();
  }

  #connect(): void {
    if (this.#closed) return;
    const socket = net.connect(this.options.socketPath);
    this.#socket = socket;
    socket.on(
      'data',
      lineReader(
        (m) => this.#message(m),
        (error) => socket.destroy(new Error(error)),
      ),
    );
    socket.once('connect', () => {
      void (async () => {
        await this.call({ op: 'hello', key: this.options.apiKey });
        const reply = await this.call({ op: 'subscribe' });
        await this.options.onConnect(this, reply);
        this.#retryMs = this.#timing.retryMinMs;
        this.#set(true);
      })().catch((err: unknown) => socket.destroy(err as Error));
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (this.#lastError = err.code ?? err.message));
    socket.once('close', () => {
      for (const [id, w] of this.#waiting) {
        clearTimeout(w.timer);
        w.resolve({ id, ok: false, error: 'the control connection closed' });
      }
      this.#waiting.clear();
      this.#set(false);
      if (this.#closed) return;
      this.#timer = setTimeout(() => this.#connect(), this.#retryMs);
      this.#timer.unref();
      this.#retryMs = Math.min(this.#retryMs * 2, this.#timing.retryMaxMs);
    });
  }

  #message(value: unknown): void {
    const m = value as Partial<ControlReply> & Partial<ControlDecision> & Partial<ControlAsk>;
    if (m.decision) {
      this.options.onDecision(m.decision);
      return;
    }
    if (m.ask) {
      this.options.onAsk?.(m.ask);
      return;
    }
    const w = typeof m.id === 'number' ? this.#waiting.get(m.id) : undefined;
    if (!w) return;
    this.#waiting.delete(m.id!);
    clearTimeout(w.timer);
    w.resolve(m as ControlReply);
  }

  #set(connected: boolean): void {
    if (connected === this.#connected) return;
    this.#connected = connected;
    if (connected) this.#lastError = '';
    this.options.onStateChange();
  }
}
