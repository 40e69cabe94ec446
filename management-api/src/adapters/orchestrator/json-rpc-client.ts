// A JSON-RPC 2.0 client to a child process over its stdin/stdout (one message per line), with ids and deadlines.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { AdapterTimeoutError, AdapterUnavailableError } from '../../adapter-errors.js';
import { scrubSecrets } from '../../secrets/redact.js';
import { fromRpcError, type RpcResponse } from './json-rpc.js';

/** How the child is started. */
export interface StdioCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** One child process and the calls in flight to it. Once the child has exited the client is dead for good. */
export class StdioRpcClient {
  readonly #pending = new Map<number, Pending>();
  readonly #child: ChildProcess;
  #nextId = 1;
  #exitReason: string | undefined;
  readonly #exited: Promise<void>;

  constructor(
    command: StdioCommand,
    private readonly logger: Logger,
    private readonly defaultTimeoutMs = 10_000,
  ) {
    this.#child = spawn(command.command, command.args, { env: command.env, ...(command.cwd ? { cwd: command.cwd } : {}), stdio: ['pipe', 'pipe', 'pipe'] });
    this.#exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#die(signal ? `the orchestrator command exited on ${signal}` : `the orchestrator command exited with code ${code}`);
        resolve();
      });
      this.#child.once('error', (err: NodeJS.ErrnoException) => {
        this.#die(`the orchestrator command could not run: ${err.code ?? err.message}`);
        // A child that never started emits no 'exit'.
        if (this.#child.pid === undefined) resolve();
      });
    });
    // A write racing the child's death fails with EPIPE; the exit handler reports it.
    this.#child.stdin?.on('error', () => undefined);
    createInterface({ input: this.#child.stdout! }).on('line', (line) => this.#onLine(line));
    createInterface({ input: this.#child.stderr! }).on('line', (line) => {
      this.logger.info({ event: 'OrchestratorStderr', line: scrubSecrets(line).slice(0, 2000) }, 'orchestrator command wrote to stderr');
    });
  }

  /** False once the child has exited (or could not start). */
  get alive(): boolean {
    return this.#exitReason === undefined;
  }

  /** Why the child is gone. */
  get exitReason(): string | undefined {
    return this.#exitReason;
  }

  /** The child's pid. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Call `method`. A dead child rejects with AdapterUnavailableError, a missed deadline with AdapterTimeoutError. */
  call<T>(method: string, params: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    if (this.#exitReason) return Promise.reject(new AdapterUnavailableError('orchestrator', this.#exitReason));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new AdapterTimeoutError('orchestrator', method, timeoutMs));
      }, timeoutMs);
      timer.unref();
      this.#pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      this.#child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** End stdin (the protocol's "shut down"), then SIGTERM after 3 s and SIGKILL after 2 s more. */
  async close(): Promise<void> {
    if (!this.alive) return;
    this.#child.stdin?.end();
    if (await this.#exitWithin(3000)) return;
    this.#child.kill('SIGTERM');
    if (await this.#exitWithin(2000)) return;
    this.#child.kill('SIGKILL');
    await this.#exited;
  }

  async #exitWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const result = await Promise.race([this.#exited.then(() => true as const), gaveUp]);
    clearTimeout(timer);
    return result;
  }

  #onLine(line: string): void {
    let message: RpcResponse;
    try {
      message = JSON.parse(line) as RpcResponse;
    } catch {
      this.logger.warn({ event: 'OrchestratorNoise', line: scrubSecrets(line).slice(0, 200) }, 'the orchestrator command wrote a line that is not JSON-RPC');
      return;
    }
    if (typeof message?.id !== 'number') return; // Notifications are not part of the protocol yet.
    const pending = this.#pending.get(message.id);
    if (!pending) return; // Answer to a call that already timed out.
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(fromRpcError(message.error, pending.method));
    else pending.resolve(message.result);
  }

  #die(reason: string): void {
    if (this.#exitReason) return;
    this.#exitReason = reason;
    this.logger.warn({ event: 'OrchestratorExited', reason }, reason);
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(new AdapterUnavailableError('orchestrator', `${reason} while ${pending.method} was in flight`));
      this.#pending.delete(id);
    }
  }
}
