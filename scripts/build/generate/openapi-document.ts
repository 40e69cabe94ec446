// The API's OpenAPI document as the running app serves it at /docs/json: the app built in a throwaway root.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMetrics } from '../../../management-api/src/api-metrics.js';
import { buildApp } from '../../../management-api/src/app.js';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';
import { createLogger } from '../../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';

/**
 * Every slot off: the routes are declared whatever the slots are, and no backend is reached. The
 * mesh host's member routes (box-to-box, NIP-98 only) are left out: clients never call them.
 */
const MINIMAL_MANIFEST = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n';

let built: Promise<Record<string, unknown>> | undefined;

/**
 * The OpenAPI 3.1 document of an app built from a minimal manifest (nothing listens). Built once
 * per process: both clients' files come from it. Callers read it, never change it.
 */
export function openApiDocument(): Promise<Record<string, unknown>> {
  built ??= buildDocument();
  return built;
}

async function buildDocument(): Promise<Record<string, unknown>> {
  const loaded = await loadManifestSource(MINIMAL_MANIFEST, { targetArch: 'x86_64', env: {} });
  if (!loaded.manifest || !loaded.sha256) throw new Error(`the generator's manifest is invalid: ${JSON.stringify(loaded.diagnostics)}`);
  const root = await mkdtemp(path.join(tmpdir(), 'agentbox-openapi-'));
  try {
    const paths = runtimePaths({ AGENTBOX_ROOT: root });
    for (const dir of [paths.runDir, paths.stateDir, paths.workspaceDir]) await mkdir(dir, { recursive: true });
    const app = await buildApp({
      manifest: loaded.manifest,
      manifestSha256: loaded.sha256,
      paths,
      logger: createLogger({ level: 'silent' }),
      metrics: createMetrics({ version: 'generate', imageHash: 'generate', manifestSha256: loaded.sha256 }),
      metricsUrl: 'http://127.0.0.1:9/metrics',
      env: {},
      egress: false,
      programs: async () => undefined,
    });
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
