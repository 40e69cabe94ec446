// `agentbox mcp`: the box's MCP server on stdio, for an assistant (Claude Code, Claude Desktop, an IDE) to start and watch agents.
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Agentbox } from '../../management-api/src/client/agentbox.js';
import { createMcpServer } from '../../management-api/src/mcp/mcp-server.js';
import { resolveTarget } from './box-target.js';
import { UserError } from './cli-errors.js';

export const usage = `Usage: agentbox mcp [--url URL] [--manifest FILE] [--root DIR] [--token TOKEN]

Serve the box's MCP tools and resources on stdin/stdout (docs/user/clients.md). Every call goes
to the box's API with the caller's credential, which decides what the tools may touch.

Options:
  --url URL        the box's API (default: $AGENTBOX_API_URL, else from the manifest, http://<api.bind>:<api.port>)
  --manifest FILE  the manifest the box runs (default ./agentbox.toml)
  --root DIR       the box's local root, for its API key (default $AGENTBOX_ROOT or ./.agentbox)
  --token TOKEN    an agent token (default: $AGENTBOX_TOKEN); without one, the box's API key from --root
  -h, --help       show this help

Nothing but the protocol is written to stdout; problems go to stderr.`;

/** Run the command: serve until stdin closes. */
export async function run(args: string[], env = process.env): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { url: { type: 'string' }, manifest: { type: 'string' }, root: { type: 'string' }, token: { type: 'string' } },
  });
  const token = values.token ?? env['AGENTBOX_TOKEN'];
  const url = values.url ?? env['AGENTBOX_API_URL'];
  // The key file is read only when no token is given: an agent's MCP server never holds the box key.
  const target = token && url ? undefined : await resolveTarget({ ...values, ...(url ? { url } : {}) }, env);
  const secret = token ?? target?.key;
  if (!secret)
    throw new UserError(
      `no credential: pass --token (or set AGENTBOX_TOKEN), or --root naming a box whose API key is readable (${target?.paths.apiKeyFile ?? 'secrets/api-key'})`,
      2,
    );
  const box = new Agentbox({ url: url ?? target!.url, auth: token ? { agentToken: token } : { apiKey: secret } });
  const server = createMcpServer(box);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
  return 0;
}
