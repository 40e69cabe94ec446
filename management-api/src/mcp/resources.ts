// The MCP resources: each agent's output and the box's event feed, read as they are now.
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Agentbox } from '../client/agentbox.js';

/** How many of the newest events the feed resource shows. */
const FEED_EVENTS = 100;

/** Register `agentbox://agents/{id}/output` (listed per agent the caller may list) and `agentbox://events`. */
export function registerResources(server: McpServer, box: Agentbox): void {
  server.registerResource(
    'agent-output',
    new ResourceTemplate('agentbox://agents/{id}/output', {
      // An agent token may not list agents: it then lists none, and still reads its own output by URI.
      list: async () => ({
        resources: (await box.agents.list().catch(() => [])).map((a) => ({
          uri: `agentbox://agents/${a.id}/output`,
          name: `${a.name ?? a.id} output`,
          mimeType: 'text/plain',
        })),
      }),
    }),
    { description: "An agent's captured output so far", mimeType: 'text/plain' },
    async (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: (await box.agents.output(String(id))).map((c) => c.text ?? '').join('') }],
    }),
  );
  server.registerResource(
    'event-feed',
    'agentbox://events',
    { description: `The newest ${FEED_EVENTS} events of the box's log, oldest first`, mimeType: 'application/json' },
    async (uri) => {
      const page = await box.events.query({ limit: FEED_EVENTS });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(page.items ?? [], null, 2) }] };
    },
  );
}
