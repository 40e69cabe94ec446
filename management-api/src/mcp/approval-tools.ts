// The MCP tools on approvals: list the requests supervised agents' asks hold, and decide one (unsigned) with the caller's credential.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Agentbox } from '../client/agentbox.js';
import { toolResult } from './tool-result.js';

/** This family's descriptions and input schemas, built once (see createMcpServer, mcp-server.ts). */
const SPECS = {
  list_approvals: {
    description:
      "Approval requests pending, oldest first: each held action (spawn, egress, ...) of a supervised agent whose policy rule says ask, with its id, digest, agent, arguments, the rule and when it expires. The operator's: refused to an agent token.",
    inputSchema: z.object({}),
  },
  decide_approval: {
    description:
      "Approve or deny a pending approval request (from list_approvals). The decision is recorded unsigned, as taken by this connection's credential (the box API key; an agent token is refused). A signed decision needs an operator's own Nostr key, which this server never holds: use `agentbox approve|deny --sign-key-file` or the dashboard.",
    inputSchema: z.object({
      id: z
        .string()
        .regex(/^apr_[0-9a-f]{18}$/)
        .describe('The request id (apr_...)'),
      decision: z.enum(['approve', 'deny']),
      reason: z.string().max(1000).optional().describe('Why, kept with the decision and told to a denied agent'),
      scope: z
        .string()
        .max(80)
        .optional()
        .describe(
          'once (default: this request), agent (later asks of the same rule by the same agent, until the API restarts) or until=<ISO time> (the same until then, at most 24 h)',
        ),
      digest: z
        .string()
        .max(80)
        .optional()
        .describe('The digest list_approvals showed: refused (ABX_ERR_APPROVAL_CHANGED) if the request is not that one any more'),
    }),
  },
};

/** Register list_approvals and decide_approval. An agent token is refused by the API on both (ABX_ERR_AGENT_SCOPE): no agent decides its own ask. */
export function registerApprovalTools(server: McpServer, box: Agentbox): void {
  server.registerTool('list_approvals', SPECS.list_approvals, () => toolResult(async () => (await box.approvals.list()).approvals ?? []));
  server.registerTool('decide_approval', SPECS.decide_approval, ({ id, decision, reason, scope, digest }) =>
    toolResult(async () => {
      const body = {
        decision,
        ...(reason !== undefined ? { reason } : {}),
        ...(scope !== undefined ? { scope } : {}),
        ...(digest !== undefined ? { digest } : {}),
      };
      return (await box.approvals.decide(id, body)).approval;
    }),
  );
}
