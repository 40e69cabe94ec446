// `agentbox api [--manifest FILE]`: run the management API in the foreground until SIGTERM/SIGINT.
import { parseArgs } from 'node:util';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox api [--manifest FILE]

Run the management API (probes, /v1/meta, adapter routes) and its metrics listener in the
foreground. Stops cleanly on SIGTERM or Ctrl-C.

Options:
  --manifest FILE   the manifest (default $AGENTBOX_MANIFEST, else ./agentbox.toml)
  -h, --help        show this help

Environment:
  AGENTBOX_ROOT          directory every runtime path lives under (default /)
  AGENTBOX_API_PORT      API port instead of api.port (0 = any free port)
  AGENTBOX_API_BIND      API address instead of api.bind
  AGENTBOX_METRICS_PORT  metrics port instead of observability.metrics_port (0 = any free port)
  AGENTBOX_METRICS_BIND  metrics address instead of observability.metrics_bind

Exit codes: 0 stopped by a signal, 1 invalid manifest or a critical adapter slot failed to
connect, 2 bad usage or a bad port override.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { manifest: { type: 'string' } } });
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const manifestFile = values.manifest ?? (process.env['AGENTBOX_MANIFEST'] || 'agentbox.toml');
  // Loaded here, not at the top: the server module starts telemetry before it loads the app.
  const { runServer } = await import('../../management-api/src/server.js');
  return runServer({
    manifestFile,
    onListening: (server) => {
      process.stderr.write(
        [
          `agentbox api: listening on ${server.apiUrl}`,
          `  metrics:  ${server.metricsUrl}`,
          `  API key:  ${server.apiKeyFile} (send it as "Authorization: Bearer <key>")`,
          `  probes:   ${server.apiUrl}/ready  ${server.apiUrl}/health`,
          '',
        ].join('\n'),
      );
    },
  });
}
