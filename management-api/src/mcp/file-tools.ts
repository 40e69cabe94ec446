// The MCP tools on an agent's workspace files: list, read (bounded; binary as base64), write and delete, through the files routes.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Agentbox } from '../client/agentbox.js';
import { readAtMost } from '../read-at-most.js';
import { agentId } from './tool-inputs.js';
import { refusal, toolResult } from './tool-result.js';

/** What read_file answers by default, and at most: an assistant reads text, not a whole build tree. */
export const READ_DEFAULT_BYTES = 64 * 1024;
export const READ_MAX_BYTES = 1024 * 1024;
/** The longest `content` write_file takes (base64 of 1 MiB is about 1.4 M characters). */
export const WRITE_MAX_CHARS = 2 * 1024 * 1024;

const filePath = z.string().max(4096).describe("A path relative to the agent's working directory");
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** This family's descriptions and input schemas, built once (see createMcpServer, mcp-server.ts). */
const SPECS = {
  list_files: {
    description: "A directory of an agent's workspace: each entry's name, type, size, mode, mtime (a link's target; links are never followed).",
    inputSchema: z.object({
      id: agentId,
      path: filePath.optional().describe("A directory relative to the agent's working directory; absent, the directory itself"),
    }),
  },
  read_file: {
    description: `Read a file of an agent's workspace: UTF-8 text as is, anything else as base64 (encoding "base64", binary true). At most max_bytes (default ${READ_DEFAULT_BYTES}, up to ${READ_MAX_BYTES}); a longer file is cut there and answers truncated true with its size.`,
    inputSchema: z.object({ id: agentId, path: filePath.min(1), max_bytes: z.number().int().min(1).max(READ_MAX_BYTES).optional() }),
  },
  write_file: {
    description:
      'Create or replace a file of an agent\'s workspace, atomically; missing parent directories are made. content is UTF-8 text, or base64 with encoding "base64"; mode sets the permission bits (octal, default 0644); create_only refuses to replace an existing file.',
    inputSchema: z.object({
      id: agentId,
      path: filePath.min(1),
      content: z.string().max(WRITE_MAX_CHARS),
      encoding: z.enum(['utf8', 'base64']).optional(),
      mode: z
        .string()
        .regex(/^0?[0-7]{3,4}$/)
        .optional(),
      create_only: z.boolean().optional(),
    }),
  },
  delete_file: {
    description:
      "Delete a file, a symbolic link (never its target) or an empty directory of an agent's workspace; recursive deletes a directory and all in it.",
    inputSchema: z.object({ id: agentId, path: filePath.min(1), recursive: z.boolean().optional() }),
  },
};

/** Register list_files, read_file, write_file and delete_file. */
export function registerFileTools(server: McpServer, box: Agentbox): void {
  server.registerTool('list_files', SPECS.list_files, ({ id, path }) => toolResult(() => box.files.list(id, path ?? '')));
  server.registerTool('read_file', SPECS.read_file, ({ id, path, max_bytes }) => toolResult(() => readBounded(box, id, path, max_bytes ?? READ_DEFAULT_BYTES)));
  server.registerTool('write_file', SPECS.write_file, async ({ id, path, content, encoding, mode, create_only }) => {
    if (encoding === 'base64' && !BASE64.test(content)) return refusal('ABX_CLIENT_INPUT', 'content is not base64 (A-Z, a-z, 0-9, +, / and = padding)');
    const bytes = encoding === 'base64' ? new Uint8Array(Buffer.from(content, 'base64')) : content;
    const headers = { ...(mode ? { 'x-file-mode': mode } : {}), ...(create_only ? { 'if-none-match': '*' } : {}) };
    return toolResult(() => box.files.write(id, path, bytes, headers));
  });
  server.registerTool('delete_file', SPECS.delete_file, ({ id, path, recursive }) =>
    toolResult(() => box.files.delete(id, path, recursive ? { recursive: true } : {})),
  );
}

/** Read at most `max` bytes of the file, then stop the transfer: the rest is never fetched into memory. */
async function readBounded(box: Agentbox, id: string, path: string, max: number): Promise<Record<string, unknown>> {
  const file = await box.files.open(id, path);
  const { bytes, more } = await readAtMost(file.body, max);
  const truncated = more || (file.size !== undefined && file.size > bytes.length);
  const text = utf8(bytes, truncated);
  return {
    path,
    size: file.size ?? bytes.length,
    etag: file.etag,
    mode: file.mode,
    truncated,
    ...(text === undefined ? { encoding: 'base64', binary: true, content: bytes.toString('base64') } : { encoding: 'utf8', binary: false, content: text }),
  };
}

/** The bytes as text when they are UTF-8 without NUL (a cut may end inside a character: that end is left out); else undefined. */
function utf8(bytes: Uint8Array, cut: boolean): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut });
  } catch {
    return undefined;
  }
}
