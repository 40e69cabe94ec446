// The MCP tools: what an assistant needs to drive agents in a box, each one call (or a bounded follow) of the typed client.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Agentbox, OutputChunk } from '../client/agentbox.js';
import { AgentboxError } from '../client/errors.js';
import { agentId } from './tool-inputs.js';
import { toolResult } from './tool-result.js';

/** The longest an output follow may wait, so a tool call always ends. */
export const MAX_FOLLOW_MS = 60_000;

/** This family's descriptions and input schemas, built once (see createMcpServer, mcp-server.ts). */
const SPECS = {
  start_agent: {
    description:
      "Start an agent in the box workspace: a profile of the box's manifest (its command, providers, limits, terminal and deadlines), or an ad-hoc command. Refused by the box policy or the caller scope with the reason.",
    inputSchema: z.object({
      profile: z.string().optional().describe('A profile of the manifest (agents.profiles.<name>), e.g. claude; then give no command'),
      name: z.string().optional().describe('What the agent is (letters, digits, - and _; no dot); default with a profile: its name'),
      command: z.string().min(1).optional().describe('Executable, absolute or on the agent PATH (an ad-hoc agent, without a profile)'),
      args: z.array(z.string()).optional().describe("Arguments (with a profile: in place of the profile's)"),
      cwd: z.string().optional().describe('Working directory relative to the workspace'),
      env: z.record(z.string()).optional().describe('Extra non-secret variables'),
      autonomy: z
        .enum(['autonomous', 'supervised'])
        .optional()
        .describe("How a policy rule that asks is met: refused at once (autonomous) or held for an operator's approval (supervised)"),
      tty: z.boolean().optional().describe('Run on a terminal (send_input types into it)'),
      timeout_sec: z.number().int().min(1).optional().describe('End the agent this many seconds after its start'),
      idle_timeout_sec: z.number().int().min(1).optional().describe('End the agent after this many quiet seconds'),
      fromSnapshot: z.string().optional().describe('Start on a copy of this workspace snapshot (a fork)'),
      checkpoints: z
        .object({
          everySec: z.number().int().min(1).max(86_400).describe('Seconds between checkpoints'),
          keep: z.number().int().min(1).max(100).optional().describe('How many of the newest are kept (default 10)'),
        })
        .strict()
        .optional()
        .describe('Snapshot its working directory on a timer while it runs (label "checkpoint"), the newest kept: a wrong path can then be undone'),
      follow_ms: z
        .number()
        .int()
        .min(1)
        .max(MAX_FOLLOW_MS)
        .optional()
        .describe(
          `Also wait up to this many ms (at most ${MAX_FOLLOW_MS}) for the agent's first output or its end, and answer it with the record (as read_output with follow_ms would): start and see what it printed in one call`,
        ),
    }),
  },
  list_agents: { description: 'Every agent the box knows, oldest first, with state, exit code and resource use.', inputSchema: z.object({}) },
  get_agent: { description: "One agent's record, with its recent egress refusals.", inputSchema: z.object({ id: agentId }) },
  read_output: {
    description: `Read an agent's captured output after chunk "after"; with follow_ms, when there is none yet, wait up to follow_ms (at most ${MAX_FOLLOW_MS} ms) for the first new output or the agent's end. Call again with next_after for more.`,
    inputSchema: z.object({ id: agentId, after: z.number().int().min(0).optional(), follow_ms: z.number().int().min(0).max(MAX_FOLLOW_MS).optional() }),
  },
  send_input: {
    description: "Type text into a running tty agent's terminal (end a line with \\r).",
    inputSchema: z.object({ id: agentId, data: z.string().min(1) }),
  },
  exec_in_agent: {
    description:
      "Run a command in a running agent's sandbox and working directory (its uid, confinement and environment; ended with the agent). Answers the command's own agent record (execOf names the agent): read what it prints with read_output on the new id, follow_ms to wait for its end.",
    inputSchema: z.object({
      id: agentId.describe('The running agent to run the command in'),
      command: z.string().min(1).describe("Executable, absolute or on the agent's PATH"),
      args: z.array(z.string()).optional(),
      env: z.record(z.string()).optional().describe("Extra non-secret variables on top of the agent's"),
    }),
  },
  terminate_agent: {
    description: 'End an agent: SIGTERM, then SIGKILL after grace_ms; answers the final record.',
    inputSchema: z.object({ id: agentId, grace_ms: z.number().int().min(0).max(600_000).optional() }),
  },
  search_memory: {
    description: 'Search a memory namespace by text (nearest first).',
    inputSchema: z.object({
      namespace: z.string().min(1),
      text: z.string().min(1),
      k: z.number().int().min(1).max(100).optional().describe('How many hits (default 10)'),
    }),
  },
  create_bead: {
    description: 'Create a bead (a task receipt).',
    inputSchema: z.object({
      title: z.string().min(1),
      body: z.string().optional(),
      kind: z.enum(['epic', 'task']).optional(),
      parentId: z.string().optional(),
      dependsOn: z.array(z.string()).optional(),
    }),
  },
  list_beads: { description: 'Beads that are open and ready to claim.', inputSchema: z.object({ limit: z.number().int().min(1).max(500).optional() }) },
  claim_bead: {
    description: 'Claim an open, ready bead (exactly one claimant wins).',
    inputSchema: z.object({ id: z.string().min(1), claimant: z.string().min(1) }),
  },
  close_bead: {
    description: 'Close a bead with its outcome.',
    inputSchema: z.object({ id: z.string().min(1), outcome: z.enum(['success', 'failure', 'cancelled']), note: z.string().optional() }),
  },
};

/** Register the agent and bead tools on `server`, calling the box through `box` (which carries the caller's own credential). */
export function registerTools(server: McpServer, box: Agentbox): void {
  server.registerTool('start_agent', SPECS.start_agent, ({ follow_ms, ...input }) =>
    toolResult(async () => {
      const agent = await box.agents.spawn(input);
      return follow_ms ? { agent, output: await follow(box, agent.id!, 0, follow_ms) } : agent;
    }),
  );
  server.registerTool('list_agents', SPECS.list_agents, () => toolResult(() => box.agents.list()));
  server.registerTool('get_agent', SPECS.get_agent, ({ id }) => toolResult(() => box.agents.get(id)));
  server.registerTool('read_output', SPECS.read_output, ({ id, after, follow_ms }) =>
    toolResult(() => (follow_ms ? follow(box, id, after ?? 0, follow_ms) : box.agents.output(id, { after: after ?? 0 }).then(render))),
  );
  server.registerTool('send_input', SPECS.send_input, ({ id, data }) =>
    toolResult(async () => {
      await box.agents.input(id, data);
      return `sent ${data.length} characters to ${id}`;
    }),
  );
  server.registerTool('exec_in_agent', SPECS.exec_in_agent, ({ id, command, args, env }) =>
    toolResult(() => box.agents.exec(id, { command, ...(args ? { args } : {}), ...(env ? { env } : {}) })),
  );
  server.registerTool('terminate_agent', SPECS.terminate_agent, ({ id, grace_ms }) =>
    toolResult(() => box.agents.terminate(id, grace_ms === undefined ? {} : { graceMs: grace_ms })),
  );
  server.registerTool('search_memory', SPECS.search_memory, ({ namespace, text, k }) => toolResult(() => box.memory.search(namespace, { text, k: k ?? 10 })));
  server.registerTool('create_bead', SPECS.create_bead, (input) => toolResult(() => box.beads.create(input)));
  server.registerTool('list_beads', SPECS.list_beads, ({ limit }) => toolResult(() => box.beads.ready(limit ? { limit } : {})));
  server.registerTool('claim_bead', SPECS.claim_bead, ({ id, claimant }) => toolResult(() => box.beads.claim(id, claimant)));
  server.registerTool('close_bead', SPECS.close_bead, ({ id, outcome, note }) => toolResult(() => box.beads.close(id, { outcome, ...(note ? { note } : {}) })));
}

/** Chunks as one text, with the seq to pass as `after` next time. */
function render(chunks: OutputChunk[]): { text: string; next_after: number; chunks: number } {
  return { text: chunks.map((c) => c.text ?? '').join(''), next_after: chunks.at(-1)?.seq ?? 0, chunks: chunks.length };
}

/**
 * A long poll: the output after `after` as soon as there is some — at once when some is already
 * there, else the first that comes — or the agent's end, or nothing once `ms` pass. An assistant
 * sees output as it comes and calls again with `next_after`, as with `tail -f`.
 *
 * One follow of the output stream does it all: the stream sends what is already there first, and
 * its end carries the agent's record. (Reading the output and the record first, then following,
 * took three requests of the API for what one does.) Once the first event is in, the events that
 * have already arrived with it are taken too, never waited for: a finished agent's whole output and
 * its end usually come in one answer, and what comes later is the next call's.
 */
async function follow(box: Agentbox, id: string, after: number, ms: number): Promise<unknown> {
  const chunks: OutputChunk[] = [];
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(), ms);
  const stream = box.agents.follow(id, { after }, { signal: abort.signal });
  let ended: unknown;
  try {
    let next = await stream.next();
    while (!next.done) {
      if (next.value.type === 'output') chunks.push(next.value.chunk);
      else {
        ended = next.value.agent;
        break;
      }
      // Only what has already arrived: a turn of the event loop without an event ends the answer.
      const arrived = await Promise.race([stream.next(), new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
      if (arrived === undefined) break;
      next = arrived;
    }
  } catch (err) {
    // The deadline is the normal end of a follow of a running agent that printed nothing.
    if (!(err instanceof AgentboxError && err.code === 'ABX_CLIENT_ABORTED' && abort.signal.aborted)) throw err;
  } finally {
    clearTimeout(deadline);
    // Ends the request of the stream (a pending next() settles with the abort, unseen).
    abort.abort();
    void stream.return(undefined).catch(() => undefined);
  }
  return { ...render(chunks), next_after: chunks.at(-1)?.seq ?? after, ...(ended ? { ended } : { running: true }) };
}
