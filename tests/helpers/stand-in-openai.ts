// A stand-in for OpenAI's Responses API that drives Codex CLI through one file edit: a shell tool call that writes the file, then a final message.
import path from 'node:path';
import { serveModel, type BeforeAnswer, workingDirectoryIn, type ModelAnswer, type ModelCall, type StandInModel } from './stand-in-model.js';

/** What the stand-in makes the agent do. */
export interface ResponsesScript {
  /** The file to write, relative to the agent's working directory as its CLI reports it. */
  file: string;
  /** Written as is by `printf '%s'`: no single quote. */
  content: string;
  finalText: string;
}

/** The stand-in, and what it learnt of the agent's tool. */
export interface StandInResponses extends StandInModel {
  toolCall?: { name: string; arguments: Record<string, unknown> };
  /** The function_call_output the agent sent back. */
  toolOutput?: unknown;
}

interface FunctionTool {
  type: string;
  name?: string;
  parameters?: { properties?: Record<string, { type?: string }> };
  tools?: FunctionTool[];
}
type Item = { type?: string; call_id?: string; output?: unknown; tools?: FunctionTool[] };

const CALL_ID = 'call_standin_0001';

/**
 * Routes: `POST …/responses` (the Responses API, as an event stream, or one JSON response when the
 * request does not ask for a stream); anything else a 404. A request offering a shell tool — a
 * function whose parameters take the command as a string `cmd` or an array `command`, found by its
 * schema — is answered with a call of it writing `script.file` under the working directory the
 * request describes, until the request carries that call's output; then with a final assistant
 * message. A request offering no shell tool gets a short message.
 */
export async function startStandInResponses(script: ResponsesScript, beforeAnswer?: BeforeAnswer): Promise<StandInResponses> {
  if (script.content.includes("'")) throw new Error('stand-in: the content is written between single quotes');
  const state: { toolCall?: StandInResponses['toolCall']; toolOutput?: unknown } = {};
  const model = await serveModel((call) => answer(call, script, state), beforeAnswer);
  return Object.defineProperties(model, {
    toolCall: { get: () => state.toolCall, enumerable: true },
    toolOutput: { get: () => state.toolOutput, enumerable: true },
  }) as StandInResponses;
}

function answer(call: ModelCall, script: ResponsesScript, state: { toolCall?: StandInResponses['toolCall']; toolOutput?: unknown }): ModelAnswer {
  const pathname = call.url.split('?')[0] ?? '';
  if (call.method !== 'POST' || !pathname.endsWith('/responses'))
    return { status: 404, json: { error: { type: 'invalid_request_error', message: `stand-in: no route ${call.method} ${pathname}` } } };
  const body = call.json ?? {};
  const modelName = typeof body['model'] === 'string' ? body['model'] : 'stand-in';
  const stream = body['stream'] === true;
  const input = (Array.isArray(body['input']) ? body['input'] : []) as Item[];
  // Tools come in `tools`, and some clients also announce more in an input item of their own.
  const offered = [...((Array.isArray(body['tools']) ? body['tools'] : []) as FunctionTool[]), ...input.flatMap((i) => i.tools ?? [])];
  const shell = flatten(offered).find(shellParameter);
  if (!shell) return response(modelName, stream, [finalMessage('OK')]);
  const output = input.find((i) => i.type === 'function_call_output' && i.call_id === CALL_ID);
  if (output) {
    state.toolOutput = output.output;
    return response(modelName, stream, [finalMessage(script.finalText)]);
  }
  const cwd = workingDirectoryIn(JSON.stringify(input).replace(/\\n/g, '\n'));
  if (!cwd) throw new Error('the request names no working directory');
  const command = `printf '%s' '${script.content}' > '${path.join(cwd, script.file)}'`;
  const args = shellParameter(shell) === 'cmd' ? { cmd: command, workdir: cwd } : { command: ['bash', '-c', command], workdir: cwd };
  state.toolCall = { name: shell.name!, arguments: args };
  return response(modelName, stream, [
    { type: 'function_call', id: 'fc_standin_0001', call_id: CALL_ID, name: shell.name, arguments: JSON.stringify(args), status: 'completed' },
  ]);
}

/** Function tools, namespaces opened. */
function flatten(tools: FunctionTool[]): FunctionTool[] {
  return tools.flatMap((t) => (t.type === 'namespace' ? flatten(t.tools ?? []) : t.type === 'function' ? [t] : []));
}

/** Which parameter of a function tool takes a shell command: `cmd` (a string) or `command` (an array). */
function shellParameter(tool: FunctionTool): 'cmd' | 'command' | undefined {
  const props = tool.parameters?.properties ?? {};
  if (props['cmd']?.type === 'string') return 'cmd';
  if (props['command']?.type === 'array') return 'command';
  return undefined;
}

function finalMessage(text: string): Record<string, unknown> {
  return { type: 'message', id: 'msg_standin_final', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

/** One response, as JSON or as the Responses API's event stream. */
function response(model: string, stream: boolean, output: Array<Record<string, unknown>>): ModelAnswer {
  const id = `resp_standin_${Date.now().toString(36)}`;
  const usage = {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 8,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 20,
  };
  const done = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model, output, usage };
  if (!stream) return { json: done };
  return {
    events: [
      { event: 'response.created', data: { type: 'response.created', response: { ...done, status: 'in_progress', output: [] } } },
      ...output.flatMap((item, output_index) => [
        { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index, item } },
        { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index, item } },
      ]),
      { event: 'response.completed', data: { type: 'response.completed', response: done } },
    ],
  };
}
