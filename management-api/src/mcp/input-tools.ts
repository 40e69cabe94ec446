// The MCP tools on input requests: the operator lists agents waiting for a person and answers one; an agent asks a person and waits for the answer.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Agentbox } from '../client/agentbox.js';
import { agentId } from './tool-inputs.js';
import { toolResult } from './tool-result.js';

const requestId = z
  .string()
  .regex(/^inp_[0-9a-f]{18}$/)
  .describe('The input request id (inp_...)');

/** This family's descriptions and input schemas, built once (see createMcpServer, mcp-server.ts). */
const SPECS = {
  list_input_requests: {
    description:
      "Agents waiting for a person, oldest first: a tty agent quiet at a prompt such as (y/n) or Password: (reason prompt, with the prompt line and the last screen lines), or an agent that asked through the API (reason explicit). The operator's: refused to an agent token.",
    inputSchema: z.object({}),
  },
  answer_input_request: {
    description:
      "Answer an open input request (from list_input_requests): for a prompt, the text is typed into the agent's terminal, then Enter unless enter is false; for an explicit request, the text is handed to the agent. The answer's text is never recorded, only its length. Refused once the request was answered, withdrawn or ended (ABX_ERR_INPUT_REQUEST_CLOSED), and to an agent token.",
    inputSchema: z.object({
      id: requestId,
      text: z.string().max(4096).describe('What to type or hand over'),
      enter: z.boolean().optional().describe('Press Enter after the text (default true)'),
    }),
  },
  request_input: {
    description:
      'Ask a person for input, as agent `id` (an agent token may ask for its own agent only), and wait up to wait_sec seconds (at most 60, default 60) for the answer: the request with answer.text once answered. Still open when the wait ends, it stays open: its answer can be read later with GET /v1/agents/{id}/input-requests/{requestId}?wait=SECONDS.',
    inputSchema: z.object({
      id: agentId,
      prompt: z.string().min(1).max(2000).describe('The question, shown to the operator'),
      wait_sec: z.number().int().min(0).max(60).optional().describe('How long to wait for the answer (default 60)'),
    }),
  },
};

/**
 * Register list_input_requests, answer_input_request and request_input. The API decides who may
 * call what: listing and answering are refused to an agent token (no agent answers another's
 * prompt); request_input only for the token's own agent.
 */
export function registerInputTools(server: McpServer, box: Agentbox): void {
  server.registerTool('list_input_requests', SPECS.list_input_requests, () => toolResult(async () => (await box.inputRequests.list()).inputRequests ?? []));
  server.registerTool('answer_input_request', SPECS.answer_input_request, ({ id, text, enter }) =>
    toolResult(async () => (await box.inputRequests.answer(id, { text, ...(enter !== undefined ? { enter } : {}) })).inputRequest),
  );
  server.registerTool('request_input', SPECS.request_input, ({ id, prompt, wait_sec }) =>
    toolResult(async () => {
      const raised = (await box.inputRequests.raise(id, prompt)).inputRequest;
      if (!raised?.id) return raised;
      return (await box.inputRequests.own(id, raised.id, { wait: wait_sec ?? 60 })).inputRequest;
    }),
  );
}
