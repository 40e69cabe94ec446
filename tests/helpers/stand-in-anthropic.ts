// A stand-in for Anthropic's Messages API that drives Claude Code through one file edit: a tool call that writes the file, then a final answer.
import path from 'node:path';
import { serveModel, type BeforeAnswer, workingDirectoryIn, type ModelAnswer, type ModelCall, type StandInModel } from './stand-in-model.js';

/** What the stand-in makes the agent do. */
export interface AnthropicScript {
  /** The file to write, relative to the agent's working directory as its CLI reports it. */
  file: string;
  content: string;
  /** The final answer once the tool's result came back. */
  finalText: string;
}

/** The stand-in, and what it learnt of the agent's tool. */
export interface StandInAnthropic extends StandInModel {
  /** The tool it called and the input it gave (once called). */
  toolCall?: { name: string; input: Record<string, unknown> };
  /** The tool_result the agent sent back. */
  toolResult?: { content: unknown; isError: boolean };
}

interface Tool {
  name: string;
  input_schema?: { properties?: Record<string, unknown>; required?: string[] };
}
type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean };
type Message = { role: string; content: string | Block[] };

const TOOL_USE_ID = 'toolu_standin_0001';

/**
 * Routes: `POST …/v1/messages` (streamed when the request says `stream`, else one JSON message),
 * `POST …/v1/messages/count_tokens`; anything else a 404 in the API's error shape. A request
 * offering a file-writing tool — found by its input schema (a path and a `content`), not by its
 * name — is answered with a `tool_use` of that tool writing `script.file` under the working
 * directory the request describes, until the request carries that call's `tool_result`; then with
 * `script.finalText` and `end_turn`. A request offering no such tool (a side request: a title, a
 * classification) gets a short text answer.
 */
export async function startStandInAnthropic(script: AnthropicScript, beforeAnswer?: BeforeAnswer): Promise<StandInAnthropic> {
  const state: { toolCall?: StandInAnthropic['toolCall']; toolResult?: StandInAnthropic['toolResult'] } = {};
  const model = await serveModel((call) => answer(call, script, state), beforeAnswer);
  return Object.defineProperties(model, {
    toolCall: { get: () => state.toolCall, enumerable: true },
    toolResult: { get: () => state.toolResult, enumerable: true },
  }) as StandInAnthropic;
}

function answer(
  call: ModelCall,
  script: AnthropicScript,
  state: { toolCall?: StandInAnthropic['toolCall']; toolResult?: StandInAnthropic['toolResult'] },
): ModelAnswer {
  const pathname = call.url.split('?')[0] ?? '';
  const body = call.json ?? {};
  if (call.method === 'POST' && pathname.endsWith('/v1/messages/count_tokens')) return { json: { input_tokens: Math.ceil(call.body.length / 4) } };
  if (call.method !== 'POST' || !pathname.endsWith('/v1/messages'))
    return { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: `stand-in: no route ${call.method} ${pathname}` } } };
  const modelName = typeof body['model'] === 'string' ? body['model'] : 'stand-in';
  const stream = body['stream'] === true;
  const tools = (Array.isArray(body['tools']) ? body['tools'] : []) as Tool[];
  const writer = tools.find(isFileWriter);
  if (!writer) return message(modelName, stream, [{ type: 'text', text: 'OK' }], 'end_turn');
  const messages = (Array.isArray(body['messages']) ? body['messages'] : []) as Message[];
  const result = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b.type === 'tool_result' && b.tool_use_id === TOOL_USE_ID);
  if (result) {
    state.toolResult = { content: result.content, isError: result.is_error === true };
    return message(modelName, stream, [{ type: 'text', text: script.finalText }], 'end_turn');
  }
  const cwd = workingDirectoryIn(JSON.stringify([body['system'], messages]).replace(/\\n/g, '\n'));
  if (!cwd) throw new Error('the request names no working directory');
  const props = Object.keys(writer.input_schema?.properties ?? {});
  const pathKey = props.find((p) => /^(file_?path|path)$/i.test(p))!;
  const input = { [pathKey]: path.join(cwd, script.file), content: script.content };
  state.toolCall = { name: writer.name, input };
  return message(modelName, stream, [{ type: 'tool_use', id: TOOL_USE_ID, name: writer.name, input }], 'tool_use');
}

/** A tool that writes a whole file: its schema requires a path and the content, and nothing else. */
function isFileWriter(tool: Tool): boolean {
  const required = tool.input_schema?.required ?? [];
  return required.length === 2 && required.includes('content') && required.some((p) => /^(file_?path|path)$/i.test(p));
}

type OutBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** One assistant message, as JSON or as the Messages API's event stream. */
function message(model: string, stream: boolean, content: OutBlock[], stopReason: 'end_turn' | 'tool_use'): ModelAnswer {
  const id = `msg_standin_${Date.now().toString(36)}`;
  const usage = { input_tokens: 12, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!stream) return { json: { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage } };
  const events: Array<{ event: string; data: unknown }> = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
      },
    },
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      // Two deltas, so the client assembles the text as it would a real stream.
      const half = Math.ceil(block.text.length / 2);
      for (const part of [block.text.slice(0, half), block.text.slice(half)])
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } } });
    } else {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { ...block, input: {} } } });
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)])
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } } });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return { events };
}
