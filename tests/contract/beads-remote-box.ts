// A real Agentbox API on 127.0.0.1 (the app with auth, schemas and the resolver): the backend of
// beads/external-http, and the server the bead and event route tests talk to.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../management-api/src/app.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { createLogger, type LogLevel } from '../../management-api/src/observability/logger.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';
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
export const LIMITS = { max: 1_000_000, timeWindowMs: 60_000, bodyLimit: 1024 * 1024 };

/** Options of {@link startBox}. */
export interface BoxOptions {
  /** Manifest text (default: beads = local-sqlite, every other slot off). */
  toml?: string;
  /** Runtime root to reuse (a restart on the same volume); a new temporary one otherwise. */
  root?: string;
  port?: number;
  limits?: Partial<typeof LIMITS>;
}

/** A box serving /v1/beads from local-sqlite. */
export function startBeadsBox(options: { root?: string; port?: number } = {}): Promise<BeadsBox> {
  return startBox(options);
}

/** Build the real app (auth, schemas, error handling, resolver, routes) under `root` and listen on `port` (0: any). */
export async function startBox(options: BoxOptions = {}): Promise<BeadsBox> {
  const root = options.root ?? mkdtempSync(path.join(tmpdir(), 'agentbox-beads-box-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  for (const dir of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(dir, { recursive: true });
  const loaded = await loadManifestSource(options.toml ?? onlySlot('beads', 'local-sqlite'), { targetArch: 'x86_64', env: {} });
  if (!loaded.manifest || !loaded.sha256 || loaded.exitCode !== 0) throw new Error(`box manifest invalid: ${JSON.stringify(loaded.diagnostics)}`);
  const limits = { ...LIMITS, ...options.limits };
  const app = await buildApp({
    manifest: loaded.manifest,
    manifestSha256: loaded.sha256,
    paths,
    logger: createLogger({ level: (process.env['ABX_TEST_LOG'] as LogLevel | undefined) ?? 'silent' }),
    metrics: createMetrics({ version: 'test', imageHash: 'test', manifestSha256: loaded.sha256 }),
    metricsUrl: 'http://127.0.0.1:9/metrics',
    env: {},
    limits,
    programs: async () => undefined,
  });
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
