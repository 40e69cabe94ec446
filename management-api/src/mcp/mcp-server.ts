// The box's MCP server: its tools and resources over a typed client that carries the caller's own credential.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Agentbox } from '../client/agentbox.js';
import { apiVersion } from '../version.js';
import { registerApprovalTools } from './approval-tools.js';
import { registerFileTools } from './file-tools.js';
import { registerInputTools } from './input-tools.js';
import { registerResources } from './resources.js';
import { registerTools } from './tools.js';

/**
 * A new server for one connection (stdio) or one request (/mcp, stateless). Everything it does
 * goes through `box`: the API decides what the caller may touch, so an agent token reaches only
 * its own agent, its files, beads, memory and input requests whichever tool is called, and never approvals, exec
 * or another agent's input requests.
 */
export function createMcpServer(box: Agentbox): McpServer {
  const server = new McpServer({ name: 'agentbox', version: apiVersion() }, { capabilities: { tools: {}, resources: {} } });
  registerTools(server, box);
  registerFileTools(server, box);
  registerApprovalTools(server, box);
  registerInputTools(server, box);
  registerResources(server, box);
  return server;
}
