// A tty agent's terminal: GET /v1/agents/:id/terminal (WebSocket: the screen, then output; keystrokes and resizes in) and POST /v1/agents/:id/input.
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import '../app-state.js';
import type { AgentTerminalHandle, TerminalViewer } from '../adapters/orchestrator/agent-terminal.js';
import { checkTtySize } from '../adapters/orchestrator/agent-tty.js';
import { MAX_INPUT_CHARS } from '../adapters/orchestrator/tty-agents.js';
import { errors, idParams } from './agents-routes.js';
import type { MutationLimits } from './events-routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The terminal a WebSocket upgrade attaches to, found before the upgrade so a refusal is an HTTP answer. */
    agentTerminal?: AgentTerminalHandle;
  }
}

/**
 * Register the terminal routes. Agent tokens are refused on both (`config.agent: 'deny'`): a
 * terminal is the operator's (the API key, or the dashboard's session, whose WebSocket upgrade must
 * come from the box's own Origin), never another agent's, and an agent has its own terminal already.
 */
export function registerTerminalRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const agents = () => app.agentbox.resolver.slot('orchestrator');

  app.get<{ Params: { id: string } }>(
    '/v1/agents/:id/terminal',
    {
      websocket: true,
      config: { agent: 'deny' },
      schema: {
        summary:
          "WebSocket to a tty agent's terminal. Out: binary frames of terminal data (first the current screen with up to 1,000 lines of scrollback, then the output as it comes), and a text frame {type:'exit',agent} when the agent has ended. In: binary frames are keystrokes; text frames are JSON, {type:'input',data} or {type:'resize',cols,rows}",
        tags: ['agents'],
        params: idParams,
        response: errors,
      },
      // Before the upgrade: an unknown agent (404) or one without a terminal (409) is answered as HTTP.
      preHandler: async (request) => {
        request.agentTerminal = await agents().terminal(request.params.id);
      },
    },
    (socket, request) => {
      const terminal = request.agentTerminal!;
      const viewer: TerminalViewer = {
        data: (bytes) => socket.send(bytes, { binary: true }),
        control: (record) => socket.send(JSON.stringify(record)),
        buffered: () => socket.bufferedAmount,
        close: (code, reason) => socket.close(code, reason.slice(0, 120)),
      };
      const attachment = terminal.attach(viewer);
      socket.on('close', () => attachment.detach());
      socket.on('message', (data, isBinary) => message(socket, terminal, data as Buffer, isBinary));
    },
  );

  app.post<{ Params: { id: string }; Body: { data: string } }>(
    '/v1/agents/:id/input',
    {
      bodyLimit: limits.bodyLimit,
      config: { agent: 'deny', rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } },
      schema: {
        summary: "Type text into a running tty agent's terminal (as keystrokes: end a line with \\r)",
        tags: ['agents'],
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['data'],
          properties: { data: { type: 'string', minLength: 1, maxLength: MAX_INPUT_CHARS } },
        },
        response: { 204: { type: 'null' }, ...errors },
      },
    },
    async (request, reply) => {
      await agents().input(request.params.id, request.body.data);
      return reply.code(204).send();
    },
  );
}

/** One message from a viewer: keystrokes (binary), or a JSON control record (text). */
function message(socket: WebSocket, terminal: AgentTerminalHandle, data: Buffer, isBinary: boolean): void {
  if (isBinary) {
    terminal.input(data);
    return;
  }
  let record: { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown };
  try {
    record = JSON.parse(data.toString('utf8')) as typeof record;
  } catch {
    refuse(
      socket,
      'a text frame is a JSON record: {"type":"input","data":"..."} or {"type":"resize","cols":N,"rows":N}; send keystrokes as binary frames or as input records',
    );
    return;
  }
  if (record?.type === 'input' && typeof record.data === 'string') {
    terminal.input(record.data);
    return;
  }
  if (record?.type === 'resize') {
    try {
      terminal.resize(checkTtySize({ cols: record.cols, rows: record.rows }));
    } catch (err) {
      refuse(socket, (err as Error).message);
    }
    return;
  }
  refuse(socket, 'unknown record: the types are "input" (with data, a string) and "resize" (with cols and rows)');
}

/** A control record the viewer got wrong: said, not fatal (the viewer may be a person's script). */
function refuse(socket: WebSocket, message: string): void {
  socket.send(JSON.stringify({ type: 'error', message }));
}
