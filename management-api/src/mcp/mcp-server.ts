// The box's MCP server: its tools and resources over a typed client that carries the caller's own credential.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Agentbox } from '../client/agentbox.js';
import { apiVersion } from '../version.js';
import { registerApprovalTools } from './approval-tools.js';
import { registerFileTools } from './file-tools.js';
import { registerInputTools } from './input-tools.js';
import { registerResources } from './resources.js';
import { registerSnapshotTools } from './snapshot-tools.js';
import { registerTools } from './tools.js';

/**
 * One JSON Schema validator for every server. The SDK's server makes a new Ajv instance (with its
 * formats) for each server unless given one: per /mcp request that was a tenth of the call's CPU.
 * The box's tools declare no output schema and ask no elicitation, so it holds no per-request state.
 */
let validator: AjvJsonSchemaValidator | undefined;
const sharedValidator = (): AjvJsonSchemaValidator => (validator ??= new AjvJsonSchemaValidator());

/**
 * A new server for one connection (stdio) or one request (/mcp, stateless). Each tool family keeps
 * its descriptions and zod input schemas in a module constant (`SPECS`), so a server per request
 * only registers them: building the schemas again for each request was a good part of its cost.
 * Everything it does goes through `box`: the API decides what the caller may touch, so an agent token reaches only
 * its own agent, its files, beads, memory and input requests whichever tool is called, and never approvals, exec
 * or another agent's input requests.
 */
export function createMcpServer(box: Agentbox): McpServer {
  const server = new McpServer(
    { name: 'agentbox', version: apiVersion() },
    { capabilities: { tools: {}, resources: {} }, jsonSchemaValidator: sharedValidator() },
  );
  registerTools(server, box);
  registerFileTools(server, box);
  registerSnapshotTools(server, box);
  registerApprovalTools(server, box);
  registerInputTools(server, box);
  registerResources(server, box);
  return server;
}
