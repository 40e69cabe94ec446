// Whether the API controls an egress proxy, and starting its controller.
import type { Logger } from 'pino';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { boxSupervisorUrl } from '../programme/supervised.js';
import { EgressController, type EgressControllerOptions } from './controller.js';
import type { EgressMetrics } from './metrics.js';

/** What {@link startEgress} decides from. */
export interface EgressStartOptions {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  env: Readonly<Record<string, string | undefined>>;
  apiKey: string;
  logger: Logger;
  metrics: EgressMetrics;
  appendEvent: EgressControllerOptions['appendEvent'];
  approver?: EgressControllerOptions['approver'];
  /** An explicit socket, or false for none; undefined decides from the manifest and the environment. */
  setting: { socketPath: string; timing?: EgressControllerOptions['timing'] } | false | undefined;
}

/**
 * The controller of the box's egress proxy, started, or undefined when there is none: the
 * proxy runs as a programme of the box's supervisord when `sandbox.enabled`, so an API that is
 * one of that supervisord's programmes (it has the box's supervisor URL, programme/supervised.ts)
 * controls it. An API run on its own (tests, `agentbox api`) starts agents without a proxy unless
 * given a socket.
 */
export function startEgress(options: EgressStartOptions): EgressController | undefined {
  if (options.setting === false) return undefined;
  const besideTheProxy = boxSupervisorUrl(options.env) !== undefined;
  if (!options.setting && !(options.manifest.sandbox.enabled && besideTheProxy)) return undefined;
  const socketPath = options.setting ? options.setting.socketPath : options.paths.egressControlSocket;
  return new EgressController({
    socketPath,
    apiKey: options.apiKey,
    logger: options.logger.child({ component: 'egress' }),
    metrics: options.metrics,
    appendEvent: options.appendEvent,
    ...(options.approver ? { approver: options.approver } : {}),
    ...(options.setting?.timing ? { timing: options.setting.timing } : {}),
  }).start();
}
