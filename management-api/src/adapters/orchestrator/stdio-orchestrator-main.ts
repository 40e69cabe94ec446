// The reference stdio orchestrator: serves the local process manager over stdin/stdout for orchestrator/external-stdio.
//
//   [integrations.orchestrator]
//   command = "/opt/agentbox/config/stdio-orchestrator"   (config/stdio-orchestrator runs this file)
//
// It runs agents in the workspace under AGENTBOX_ROOT with the same allowlisted environment as
// orchestrator/local-procmgr, logs JSON lines to stderr (stdout carries the protocol), and ends
// its agents when stdin closes or on SIGTERM.
import path from 'node:path';
import { pino } from 'pino';
import { createLogger, type LogLevel } from '../../observability/logger.js';
import { runtimePaths } from '../../runtime-paths.js';
import { ProcessManager } from './process-manager.js';
import { serveStdio } from './stdio-server.js';

const logger = createLogger({
  level: (process.env['AGENTBOX_ORCHESTRATOR_LOG_LEVEL'] as LogLevel | undefined) ?? 'info',
  destination: pino.destination({ dest: 2, sync: true }),
});
const paths = runtimePaths(process.env);
const manager = new ProcessManager({
  workspaceDir: paths.workspaceDir,
  parentEnv: process.env,
  logger,
  recordDir: path.join(paths.runDir, 'stdio-orchestrator'),
});

// SIGTERM ends serving like a closed stdin: every agent is terminated before the exit.
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());

let code = 0;
try {
  await manager.start();
  await serveStdio(manager, process.stdin, process.stdout, logger, { stop: stop.signal });
} catch (err) {
  logger.fatal({ err, event: 'StdioOrchestratorFailed' }, 'the stdio orchestrator failed');
  code = 1;
}
// stdin may still be open (after SIGTERM): exit explicitly rather than wait for it.
process.exit(code);
