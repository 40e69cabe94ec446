// Input schemas the MCP tool families share.
import { z } from 'zod';

/** An agent's id, as start_agent, exec_in_agent and list_agents answer it. */
export const agentId = z.string().min(1).max(64).describe('The agent id (from start_agent or list_agents)');
