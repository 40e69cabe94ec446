// The management API run: manifest, telemetry first, then the app; SIGTERM/SIGINT close it within 10 s (its process entry is bin/management-api.ts).
import { startTelemetry, type Telemetry } from './observability/telemetry.js';
import { ManifestInvalidError } from './manifest/load-manifest.js';
import { loadBoxManifest } from './manifest/load-box-manifest.js';
import { UnknownHostArchError } from './manifest/host-arch.js';
import { createLogger } from './observability/logger.js';
import { runtimePaths } from './runtime-paths.js';
import { listenConfig, ListenConfigError, type ListenConfig } from './server-config.js';
import { portInUseLine, type BoxPort } from './box-ports.js';
import { clearStartFailure, recordStartFailure, START_FAILED_EXIT } from './programme/start-failure.js';
import { apiVersion, imageHash } from './version.js';
import { clearFailedStarts, pauseUnlessStopped, recordFailedStart, startFailuresFile } from './boot/restart-pacing.js';
import { startedBySupervisord } from './programme/supervised.js';
import type { RunningServer } from './start-server.js';
import type { RegistryOverrides } from './adapters/registry.js';
import { pinTickObjectShape } from './boot/tick-shape-pin.js';

/** How long a graceful shutdown may take before the process exits 1 anyway. */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/** Options of {@link runServer}. */
export interface RunOptions {
  /** The manifest; default AGENTBOX_MANIFEST, else the runtime layout's manifest file (manifest/load-box-manifest.ts). */
  manifestFile?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Told once both listeners are up (the CLI prints the URLs). */
  onListening?: (server: RunningServer) => void;
  /** Adapter modules to use instead of the manifest's choice (for embedding and tests). */
  overrides?: RegistryOverrides;
}

/**
 * Run the API until SIGTERM or SIGINT. Resolves to the exit code: 0 after a clean shutdown,
 * 1 when the manifest is invalid, a critical adapter slot cannot connect or start-up fails,
 * 2 for a bad listener override; under supervisord, 78 (programme/start-failure.ts) when a port is
 * taken, so supervisord does not restart it. If shutdown leaves anything open, the process exits 1 at the deadline.
 */
export async function runServer(options: RunOptions = {}): Promise<number> {
  // Before anything runs long enough to see a full collection (boot/tick-shape-pin.ts).
  pinTickObjectShape();
  const env = options.env ?? process.env;
  const paths = runtimePaths(env);
  let loaded: Awaited<ReturnType<typeof loadBoxManifest>>;
  let listen: ListenConfig;
  try {
    loaded = await loadBoxManifest(env, options.manifestFile);
    listen = listenConfig(loaded.manifest, env);
  } catch (err) {
    if (!(err instanceof ManifestInvalidError || err instanceof ListenConfigError || err instanceof UnknownHostArchError)) throw err;
    process.stderr.write(`agentbox api: ${err.message}\n`);
    return failedStart(err instanceof ListenConfigError ? 2 : 1, env, paths.runDir, (line) => process.stderr.write(`agentbox api: ${line}\n`));
  }
  const { manifest, sha256 } = loaded;
  // Before the app (and fastify) load, so every span from here on has a provider.
  const telemetry = await startTelemetry({
    endpoint: manifest.observability.otlp_endpoint,
    serviceVersion: apiVersion(),
    imageHash: imageHash(env),
    boxName: manifest.agentbox.name,
  });
  const logger = createLogger({ level: manifest.observability.log_level });
  for (const w of loaded.warnings) logger.warn({ event: 'ManifestWarning', id: w.id, pointer: w.pointer }, w.message);

  let server: RunningServer;
  try {
    const { startServer } = await import('./start-server.js');
    // A start that listens ends the series of failed starts, before it is announced.
    const onBound = startedBySupervisord(env)
      ? async () => {
          clearStartFailure(paths.runDir, 'management-api');
          await clearFailedStarts(startFailuresFile(paths.runDir));
        }
      : undefined;
    server = await startServer({
      manifest,
      manifestSha256: sha256,
      paths,
      logger,
      env,
      listen,
      ...(onBound ? { onBound } : {}),
      ...(options.overrides ? { overrides: options.overrides } : {}),
    });
  } catch (err) {
    const taken = portTaken(err, listen);
    if (taken) {
      // A taken port stays taken: no paced restart, the status supervisord does not restart, and the one line.
      const line = portInUseLine(taken);
      logger.fatal({ event: 'ApiStartFailed', err, port: taken.port, key: taken.key }, line);
      await telemetry.shutdown();
      if (!startedBySupervisord(env)) return 1;
      recordStartFailure(paths.runDir, 'management-api', line);
      return START_FAILED_EXIT;
    }
    const fatal = (err as Error).name === 'FatalAdapterError';
    logger.fatal({ err, event: fatal ? 'AdapterFatal' : 'ApiStartFailed' }, (err as Error).message);
    await telemetry.shutdown();
    return failedStart(1, env, paths.runDir, (line, fields) => logger.warn({ event: 'ApiRestartPaced', ...fields }, line));
  }
  options.onListening?.(server);
  const signal = await nextSignal();
  return shutdown(server, telemetry, logger, signal);
}

/**
 * The exit code of a start that failed. Under supervisord the process first pauses, longer after
 * each failure in a row (boot/restart-pacing.ts), so a box whose backend is down does not restart
 * its API in a tight loop; run by hand it exits at once.
 */
async function failedStart(
  code: number,
  env: Readonly<Record<string, string | undefined>>,
  runDir: string,
  log: (line: string, fields: { failures: number; pauseMs: number }) => void,
): Promise<number> {
  if (!startedBySupervisord(env)) return code;
  const { failures, pauseMs } = await recordFailedStart(startFailuresFile(runDir));
  log(`start failure ${failures} in a row; pausing ${pauseMs} ms before exiting so supervisord does not restart the API in a tight loop`, {
    failures,
    pauseMs,
  });
  await pauseUnlessStopped(pauseMs);
  return code;
}

/** The API's or the metrics listener's port, when `err` says it is taken. */
function portTaken(err: unknown, listen: ListenConfig): BoxPort | undefined {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e?.code !== 'EADDRINUSE') return undefined;
  const metrics: BoxPort = {
    name: 'metrics',
    program: 'management-api',
    key: 'observability.metrics_port',
    envVar: 'AGENTBOX_METRICS_PORT',
    host: listen.metricsHost,
    port: listen.metricsPort,
  };
  const api: BoxPort = { name: 'API', program: 'management-api', key: 'api.port', envVar: 'AGENTBOX_API_PORT', host: listen.apiHost, port: listen.apiPort };
  return e.port === listen.metricsPort && e.port !== listen.apiPort ? metrics : api;
}

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals): void => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(sig);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

async function shutdown(server: RunningServer, telemetry: Telemetry, logger: ReturnType<typeof createLogger>, signal: NodeJS.Signals): Promise<number> {
  logger.info({ event: 'ShutdownStarted', signal }, `received ${signal}; closing`);
  // Unref'ed: a clean close lets the process end at once; if something stays open, this fires,
  // names what is left and exits 1 (supervisord then restarts the API).
  const deadline = setTimeout(() => {
    logger.fatal({ event: 'ShutdownTimeout', open: process.getActiveResourcesInfo() }, `shutdown took longer than ${SHUTDOWN_DEADLINE_MS} ms`);
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
  await server.close();
  await telemetry.shutdown();
  logger.info({ event: 'ApiStopped', signal }, 'closed');
  return 0;
}
