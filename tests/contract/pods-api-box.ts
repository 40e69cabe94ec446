// The real app (auth, schemas, error handler, resolver) on 127.0.0.1 with the pod or agent routes, for route tests.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../management-api/src/app.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { createLogger, type LogLevel } from '../../management-api/src/observability/logger.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';
import type { MutationLimits } from '../../management-api/src/routes/events-routes.js';
import { runtimePaths, type RuntimePaths } from '../../management-api/src/runtime-paths.js';

/** A real API (auth, schemas, error handler, resolver) listening on 127.0.0.1. */
export interface ApiBox {
  url: string;
  key: string;
  paths: RuntimePaths;
  /** fetch with the API key (unless `auth: false`). */
  call(pathname: string, init?: RequestInit & { auth?: false }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Build the app from `toml` under a temporary root, register routes with `register` unless the app
 * already has `probe` (once the core registers them itself), and listen on an ephemeral port.
 */
export async function startApiBox(
  toml: string,
  register: (app: FastifyInstance, limits: MutationLimits) => void,
  probe: { method: 'GET' | 'POST'; url: string },
  options: { env?: Record<string, string | undefined>; limits?: Partial<MutationLimits> } = {},
): Promise<ApiBox> {
  const loaded = await loadManifestSource(toml, { targetArch: 'x86_64', env: {} });
  if (loaded.exitCode !== 0 || !loaded.manifest || !loaded.sha256) throw new Error(`test manifest is invalid: ${JSON.stringify(loaded.diagnostics)}`);
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-api-box-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  for (const dir of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(dir, { recursive: true });
  const limits: MutationLimits = { max: 1_000_000, timeWindowMs: 60_000, bodyLimit: 1024 * 1024, ...options.limits };
  const app = await buildApp({
    manifest: loaded.manifest,
    manifestSha256: loaded.sha256,
    paths,
    logger: createLogger({ level: (process.env['ABX_TEST_LOG'] as LogLevel | undefined) ?? 'silent' }),
    metrics: createMetrics({ version: 'test', imageHash: 'test', manifestSha256: loaded.sha256 }),
    metricsUrl: 'http://127.0.0.1:9/metrics',
    env: options.env ?? { PATH: process.env['PATH'], HOME: process.env['HOME'] },
    limits,
    programs: async () => undefined,
  });
  if (!app.hasRoute(probe)) register(app, limits);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const key = readFileSync(paths.apiKeyFile, 'utf8').trim();
  return {
    url,
    key,
    paths,
    call: (pathname, init = {}) => {
      const { auth, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (auth !== false) headers.set('authorization', `Bearer ${key}`);
      return fetch(url + pathname, { ...rest, headers });
    },
    async close() {
      await app.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
