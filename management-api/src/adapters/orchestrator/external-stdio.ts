// orchestrator/external-stdio: agents run by an external command spoken to with JSON-RPC 2.0 over its stdin/stdout.
import type { AdapterContext, SlotHealth } from '../adapter.js';
import { AdapterInputError, AdapterUnavailableError } from '../../adapter-errors.js';
import { ApiError } from '../../errors.js';
import { agentEnvironment } from './agent-env.js';
import { StdioRpcClient } from './json-rpc-client.js';
import { PROTOCOL, type AgentList, type OutputPage } from './json-rpc.js';
import type { AgentProcess, OrchestratorAdapter, OutputChunk, OutputRequest } from './orchestrator-adapter.js';

/** This implementation's registry name. */
export const ADAPTER = 'orchestrator/external-stdio';
export { CONTRACT_VERSION } from './orchestrator-adapter.js';

/** How long one `agent.output` call waits for new output when following. */
const FOLLOW_WAIT_MS = 5_000;
/** Terminate may take the grace period plus a SIGKILL round trip. */
const TERMINATE_SLACK_MS = 10_000;

/**
 * An orchestrator adapter for `integrations.orchestrator.command`. The command gets the same
 * allowlisted environment agents get (plus AGENTBOX_ROOT, so it finds the workspace): never the
 * API's secrets. When it dies, calls fail with AdapterUnavailableError; the resolver's reconnect
 * starts a new one.
 */
export function create(context: AdapterContext<'orchestrator'>): OrchestratorAdapter {
  const { command, args } = context.settings;
  if (!command) throw new Error('adapters.orchestrator = "external-stdio" needs integrations.orchestrator.command');
  let client: StdioRpcClient | undefined;

  const live = (): StdioRpcClient => {
    if (!client?.alive) throw new AdapterUnavailableError('orchestrator', client?.exitReason ?? 'the orchestrator command is not running');
    return client;
  };
  const call = <T>(method: string, params: unknown, timeoutMs?: number): Promise<T> => live().call<T>(method, params, timeoutMs);

  const start = async (signal: AbortSignal): Promise<void> => {
    const env = agentEnvironment(context.env, undefined, { AGENTBOX_ROOT: context.paths.root });
    const next = new StdioRpcClient({ command, args: [...args], env }, context.logger);
    const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    // An abort after the race settled must not surface as an unhandled rejection.
    aborted.catch(() => undefined);
    try {
      const hello = await Promise.race([next.call<{ protocol?: string }>('initialize', { protocol: PROTOCOL }), aborted]);
      if (hello?.protocol !== PROTOCOL) throw new Error(`the orchestrator command speaks ${JSON.stringify(hello?.protocol)}, not ${PROTOCOL}`);
    } catch (err) {
      await next.close();
      throw err;
    }
    client = next;
  };

  return {
    async connect(signal) {
      // A reconnect after a failed call keeps a child that still answers: replacing it would end its agents.
      if (client?.alive) {
        try {
          await client.call('ping', {}, 5_000);
          return;
        } catch {
          await client.close();
        }
      }
      await start(signal);
    },
    async health(): Promise<SlotHealth> {
      if (!client?.alive) return { state: 'degraded', reason: client?.exitReason ?? 'not-started' };
      try {
        await client.call('ping', {}, 5_000);
        return { state: 'healthy' };
      } catch (err) {
        return { state: 'degraded', reason: `ping-failed: ${(err as Error).message}` };
      }
    },
    async close() {
      await client?.close();
    },
    // Terminals live in the API's process (the pty master, the screen): the protocol carries none.
    spawn: async (request) => {
      if (request?.tty)
        throw new AdapterInputError('tty: agents of orchestrator/external-stdio have no terminal; terminals are served by orchestrator/local-procmgr');
      return call<AgentProcess>('agent.spawn', request);
    },
    list: async () => (await call<AgentList>('agent.list', {})).agents,
    status: (id) => call<AgentProcess>('agent.status', { id }),
    terminate: (id, graceMs) => call<AgentProcess>('agent.terminate', { id, graceMs }, (Number.isFinite(graceMs) ? graceMs : 0) + TERMINATE_SLACK_MS),
    async output(id, request) {
      // The first page is fetched now, so an unknown id fails here, not on the first iteration.
      const first = await call<OutputPage>('agent.output', { id, after: request.after ?? 0, waitMs: 0 });
      return pages(id, request, first, call);
    },
    terminal: async (id) => {
      throw new ApiError('ABX_ERR_NO_TERMINAL', `agent ${JSON.stringify(id)} has no terminal: orchestrator/external-stdio runs agents without one`);
    },
    input: async (id) => {
      throw new ApiError('ABX_ERR_NO_TERMINAL', `agent ${JSON.stringify(id)} has no terminal: orchestrator/external-stdio runs agents without one`);
    },
    // The sandbox a command would join is the external process manager's, out of this process's reach.
    exec: async (id) => {
      throw new ApiError(
        'ABX_ERR_CONFLICT',
        `cannot exec into agent ${JSON.stringify(id)}: orchestrator/external-stdio runs agents elsewhere; exec is served by orchestrator/local-procmgr`,
      );
    },
  };
}

/** Yield the chunks of `first` and the pages after it: until none are left (no follow) or the output is done. */
async function* pages(
  id: string,
  request: OutputRequest,
  first: OutputPage,
  call: <T>(method: string, params: unknown, timeoutMs?: number) => Promise<T>,
): AsyncGenerator<OutputChunk> {
  let page = first;
  let after = request.after ?? 0;
  const aborted = new Promise<undefined>((resolve) => request.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
  for (;;) {
    for (const chunk of page.chunks) {
      if (request.signal.aborted) return;
      yield chunk;
      after = chunk.seq;
    }
    if (page.done || request.signal.aborted || (!request.follow && page.chunks.length === 0)) return;
    const waitMs = request.follow ? FOLLOW_WAIT_MS : 0;
    const next = await Promise.race([call<OutputPage>('agent.output', { id, after, waitMs }, waitMs + 10_000), aborted]);
    if (!next) return;
    page = next;
  }
}
