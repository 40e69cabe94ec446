// The MCP tools on workspace snapshots: take one of an agent's working directory, list them, compare two, restore one in place, delete one (a fork is start_agent's fromSnapshot).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Agentbox } from '../client/agentbox.js';
import { agentId } from './tool-inputs.js';
import { toolResult } from './tool-result.js';

const snapshotId = z
  .string()
  .regex(/^snp_[A-Za-z0-9_-]{12}$/)
  .describe('A snapshot id, snp_ and 12 letters (from snapshot_agent or list_snapshots)');

/** The most changed paths one diff_snapshots call answers by default: an assistant reads a page, then asks for the next. */
export const DIFF_DEFAULT_PATHS = 200;

/** This family's descriptions and input schemas, built once (see createMcpServer, mcp-server.ts). */
const SPECS = {
  snapshot_agent: {
    description:
      "Snapshot an agent's working directory, running or ended (content-addressed: unchanged files cost nothing). Answers the snapshot: its id, stats and what it added. Start agents on it with start_agent's fromSnapshot (a fork, several at once), or restore_snapshot once the agent has ended. An agent's own token may snapshot its own directory, within its disk budget.",
    inputSchema: z.object({
      id: agentId,
      label: z.string().max(200).optional().describe('One line naming this state (e.g. "tests pass")'),
    }),
  },
  list_snapshots: {
    description: "The box's snapshots, oldest first: id, label, when, the agent (id, name, working directory), files and bytes.",
    inputSchema: z.object({ agent: agentId.optional().describe("Only this agent's snapshots (its id)") }),
  },
  diff_snapshots: {
    description: `What changed from snapshot "from" to snapshot "to": each path added, modified or deleted (read from their records, nothing built). At most limit paths (default ${DIFF_DEFAULT_PATHS}); a longer diff answers nextCursor: call again with it as cursor.`,
    inputSchema: z.object({
      from: snapshotId.describe('The earlier snapshot'),
      to: snapshotId.describe('The later snapshot'),
      limit: z.number().int().min(1).max(10_000).optional(),
      cursor: z.string().max(4096).optional().describe("The previous answer's nextCursor"),
    }),
  },
  restore_snapshot: {
    description:
      "Replace an ended agent's working directory with a snapshot, in place (refused while it runs: terminate_agent first; to carry on from a snapshot beside it, start_agent with fromSnapshot). Contents, permission bits, mtimes and links come back; setuid bits and devices never do.",
    inputSchema: z.object({ id: agentId.describe('The ended agent whose directory is replaced'), snapshot: snapshotId }),
  },
  warm_snapshot: {
    description:
      'Keep copies of a snapshot built ahead (0 to 32; 0 removes them), so that start_agent with fromSnapshot takes one by a rename instead of copying every byte while it waits. Built one at a time in the background; answers how many are wanted and ready (call it again with the same count to see how many are ready now). Each copy takes what a fork of the snapshot takes on disk.',
    inputSchema: z.object({ snapshot: snapshotId, forks: z.number().int().min(0).max(32).describe('Copies to keep ready') }),
  },
  delete_snapshot: {
    description: 'Delete a snapshot; the bytes no other snapshot shares are freed (answers freedBytes).',
    inputSchema: z.object({ snapshot: snapshotId }),
  },
};

/** Register snapshot_agent, list_snapshots, diff_snapshots, restore_snapshot, warm_snapshot and delete_snapshot. */
export function registerSnapshotTools(server: McpServer, box: Agentbox): void {
  server.registerTool('snapshot_agent', SPECS.snapshot_agent, ({ id, label }) => toolResult(() => box.snapshots.create(id, label ? { label } : {})));
  server.registerTool('list_snapshots', SPECS.list_snapshots, ({ agent }) => toolResult(() => box.snapshots.list(agent ? { agent } : {})));
  server.registerTool('diff_snapshots', SPECS.diff_snapshots, ({ from, to, limit, cursor }) =>
    toolResult(() => box.snapshots.diff(to, from, { limit: limit ?? DIFF_DEFAULT_PATHS, ...(cursor ? { cursor } : {}) })),
  );
  server.registerTool('restore_snapshot', SPECS.restore_snapshot, ({ id, snapshot }) => toolResult(() => box.snapshots.restore(id, snapshot)));
  server.registerTool('warm_snapshot', SPECS.warm_snapshot, ({ snapshot, forks }) => toolResult(() => box.snapshots.warm(snapshot, forks)));
  server.registerTool('delete_snapshot', SPECS.delete_snapshot, ({ snapshot }) => toolResult(() => box.snapshots.delete(snapshot)));
}
