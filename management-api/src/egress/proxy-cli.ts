// Process entry of the egress proxy (supervisord programme of the box, when sandbox.enabled).
import { createLogger } from '../observability/logger.js';
import { runEgressProxy } from './proxy-main.js';

const logger = createLogger({ level: 'info' }).child({ component: 'egress-proxy' });
try {
  const run = await runEgressProxy(process.env, logger);
  const stop = (): void => {
    void run.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (err) {
  logger.fatal({ event: 'EgressProxyFailed', err }, `egress proxy cannot start: ${(err as Error).message}`);
  process.exitCode = 1;
}
