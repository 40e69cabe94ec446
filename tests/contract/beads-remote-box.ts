// A second, real Agentbox API serving /v1/beads from local-sqlite on 127.0.0.1: the backend of beads/external-http.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../management-api/src/app.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { createLogger, type LogLevel } from '../../management-api/src/observability/logger.js';
import { createMetrics } from '../../management-api/src/observability/metrics.js';
import { registerBeadRoutes } from '../../management-api/src/routes/beads-routes.js';
import { runtimePaths, type RuntimePaths } from '../../management-api/src/runtime-paths.js';
import { onlySlot } from './pods-harness.js';

/** A running beads box. */
export interface BeadsBox {
  url: string;
  port: number;
  /** Its API key, and the 0600 file that holds it (what a client's token_file names). */
  key: string;
  keyFile: string;
  paths: RuntimePaths;
  app: FastifyInstance;
  /** Stop serving (the data stays under `root` for a restart). */
  stop(): Promise<void>;
}

/** Mutations per minute allowed to one client: high, so contract runs are not rate limited. */
const LIMITS = { max: 1_000_000, timeWindowMs: 60_000, bodyLimit: 1024 * 1024 };

/**
 * Build the real app (auth, schemas, error handling, resolver) with beads = local-sqlite under
 * `root`, and listen on `port` (0: any). The bead routes are registered here only if the app does
 * not register them itself.
 */
export async function startBeadsBox(options: { root?: string; port?: number } = {}): Promise<BeadsBox> {
  const root = options.root ?? mkdtempSync(path.join(tmpdir(), 'agentbox-beads-box-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  for (const dir of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(dir, { recursive: true });
  const loaded = await loadManifestSource(onlySlot('beads', 'local-sqlite'), { targetArch: 'x86_64', env: {} });
  if (!loaded.manifest || !loaded.sha256) throw new Error('beads box manifest invalid');
  const app = await buildApp({
    manifest: loaded.manifest,
    manifestSha256: loaded.sha256,
    paths,
    logger: createLogger({ level: (process.env['ABX_TEST_LOG'] as LogLevel | undefined) ?? 'silent' }),
    metrics: createMetrics({ version: 'test', imageHash: 'test', manifestSha256: loaded.sha256 }),
    metricsUrl: 'http://127.0.0.1:9/metrics',
    env: {},
    limits: LIMITS,
    programs: async () => undefined,
  });
  if (!app.hasRoute({ method: 'POST', url: '/v1/beads' })) registerBeadRoutes(app, LIMITS);
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    key: readFileSync(paths.apiKeyFile, 'utf8').trim(),
    keyFile: paths.apiKeyFile,
    paths,
    app,
    stop: () => app.close(),
  };
}

/** Remove a box's directory after it stopped. */
export function removeBox(box: BeadsBox): void {
  rmSync(box.paths.root, { recursive: true, force: true });
}

/** Manifest text for a client box whose beads slot is external-http against `url`. */
export function clientManifest(url: string, token: { file?: string; env?: string }): string {
  const auth = token.file ? `token_file = "${token.file}"\n` : token.env ? `token_env = "${token.env}"\n` : '';
  return onlySlot('beads', 'external-http', `[mesh]\nmode = "client"\nhost_url = "http://127.0.0.1:9/"\n[integrations.beads]\nurl = "${url}"\n${auth}`);
}
