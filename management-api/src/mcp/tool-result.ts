// What an MCP tool answers: JSON text on success; a refusal or failure as a tool error (isError) with the API's code and reason.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AgentboxError } from '../client/errors.js';

/** Run `work` and answer its value as JSON text, or its error as a tool error the assistant can read. */
export async function toolResult(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const value = await work();
    return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] };
  } catch (err) {
    if (err instanceof AgentboxError) return refusal(err.code, err.message);
    throw err;
  }
}

/** A tool error: `CODE: reason`, the same code the REST API answers with. */
export function refusal(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
}
