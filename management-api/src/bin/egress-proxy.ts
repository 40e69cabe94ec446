// Process entry of the egress proxy (supervisord programme `egress-proxy` when sandbox.enabled, command agentbox-egress-proxy).
import { createLogger } from '../observability/logger.js';
import { runtimePaths } from '../runtime-paths.js';
import { watchParent } from '../programme/parent-watch.js';
import { clearStartFailure, recordStartFailure, START_FAILED_EXIT } from '../programme/start-failure.js';
import { PortInUseError, runEgressProxy } from '../egress/proxy-main.js';

const logger = createLogger({ level: 'info' }).child({ component: 'egress-proxy' });
const { runDir } = runtimePaths(process.env);
watchParent({ onGone: (parent) => logger.warn({ event: 'SupervisorGone', parent }, 'supervisord is gone; stopping') });
try {
  const run = await runEgressProxy(process.env, logger);
  clearStartFailure(runDir, 'egress-proxy');
  const stop = (): void => {
    void run.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (err) {
  logger.fatal({ event: 'EgressProxyFailed', err }, `egress proxy cannot start: ${(err as Error).message}`);
  // A taken port stays taken: exit with the status supervisord does not restart, and say why.
  if (err instanceof PortInUseError) {
    recordStartFailure(runDir, 'egress-proxy', err.message);
    process.exitCode = START_FAILED_EXIT;
  } else {
    process.exitCode = 1;
  }
}
