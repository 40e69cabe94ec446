// An MCP tool call against the same over the REST API: start an agent and read its first output, through the box's /mcp (the official SDK's client, streamable HTTP) and through the typed client, interleaved on one real box.
// The target is on the one-call way an assistant does it (start_agent with follow_ms); the two-call way (start_agent, then read_output) is shown beside it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { performance } from 'node:perf_hooks';
import { Agentbox } from '../../management-api/src/client/agentbox.js';
import { repoPath } from '../cli/repo-path.js';
import { startBenchBox } from './dashboard-box.js';
import { ms, quantile, table } from './stats.js';

const ROUNDS = Number(process.env['AGENTBOX_BENCH_MCP_ROUNDS'] || 40);
const WARMUP = 5;
/** The mark: an MCP round within this multiple of the REST one. */
const TARGET_RATIO = 1.2;

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

/** REST: spawn, then follow the output until its first chunk. */
async function overRest(box: Agentbox, name: string): Promise<void> {
  const agent = await box.agents.spawn({ name, command: '/bin/echo', args: ['first output'] });
  for await (const event of box.agents.follow(agent.id!)) if (event.type === 'output' || event.type === 'end') return;
}

/** MCP in one call: start_agent with follow_ms answers the record with the first output (read_output only when none came). */
async function overMcpOneCall(client: Client, name: string): Promise<void> {
  const started = (await client.callTool({
    name: 'start_agent',
    arguments: { name, command: '/bin/echo', args: ['first output'], follow_ms: 5_000 },
  })) as ToolResult;
  if (started.isError) throw new Error(`mcp bench: start_agent failed: ${started.content[0]?.text}`);
  const { agent, output } = JSON.parse(started.content[0]!.text) as { agent: { id: string }; output: { text: string; next_after: number } };
  if (!output.text.includes('first output')) await readUntilFirstOutput(client, agent.id);
}

/** MCP in two calls: start_agent, then read_output (following) until the first output is there. */
async function overMcpTwoCalls(client: Client, name: string): Promise<void> {
  const started = (await client.callTool({ name: 'start_agent', arguments: { name, command: '/bin/echo', args: ['first output'] } })) as ToolResult;
  if (started.isError) throw new Error(`mcp bench: start_agent failed: ${started.content[0]?.text}`);
  await readUntilFirstOutput(client, (JSON.parse(started.content[0]!.text) as { id: string }).id);
}

async function readUntilFirstOutput(client: Client, id: string): Promise<void> {
  for (;;) {
    const read = (await client.callTool({ name: 'read_output', arguments: { id, follow_ms: 5_000 } })) as ToolResult;
    if (read.isError) throw new Error(`mcp bench: read_output failed: ${read.content[0]?.text}`);
    if (read.content[0]?.text.includes('first output')) return;
  }
}

/** Run the comparison and return its report. */
export async function runMcpBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const box = await startBenchBox(repoPath('dist/ui'));
  const client = new Client({ name: 'agentbox-mcp-bench', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${box.apiUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${box.key}` } } }));
    const rest = new Agentbox({ url: box.apiUrl, auth: { apiKey: box.key } });
    const viaRest: number[] = [];
    const viaMcp: number[] = [];
    const viaMcpTwo: number[] = [];
    const timed = async (run: () => Promise<void>, into: number[], i: number): Promise<void> => {
      const t0 = performance.now();
      await run();
      if (i >= WARMUP) into.push(performance.now() - t0);
    };
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      await timed(() => overRest(rest, `rest-${i}`), viaRest, i);
      await timed(() => overMcpOneCall(client, `mcp-${i}`), viaMcp, i);
      await timed(() => overMcpTwoCalls(client, `mcp2-${i}`), viaMcpTwo, i);
    }
    const ratio = quantile(viaMcp, 0.5) / quantile(viaRest, 0.5);
    const ratioTwo = quantile(viaMcpTwo, 0.5) / quantile(viaRest, 0.5);
    const text = [
      `MCP vs REST — start an agent (/bin/echo, sandboxed as the box does) and read its first output; ${ROUNDS} rounds after ${WARMUP}, interleaved, one box in this process`,
      table(
        ['path', 'p50', 'p90', 'vs REST (p50)'],
        [
          ['REST: typed client (spawn + follow output)', ms(quantile(viaRest, 0.5)), ms(quantile(viaRest, 0.9)), '1.00×'],
          ['MCP: start_agent with follow_ms (one call)', ms(quantile(viaMcp, 0.5)), ms(quantile(viaMcp, 0.9)), `${ratio.toFixed(2)}×`],
          ['MCP: start_agent, then read_output (two calls)', ms(quantile(viaMcpTwo, 0.5)), ms(quantile(viaMcpTwo, 0.9)), `${ratioTwo.toFixed(2)}×`],
        ],
      ),
      `Target (one tool call): ≤ ${TARGET_RATIO}× of REST: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}.`,
    ].join('\n');
    return {
      text,
      json: { restP50Ms: quantile(viaRest, 0.5), mcpP50Ms: quantile(viaMcp, 0.5), ratio, mcpTwoCallsP50Ms: quantile(viaMcpTwo, 0.5), ratioTwoCalls: ratioTwo },
    };
  } finally {
    await client.close().catch(() => undefined);
    await box.close();
  }
}
