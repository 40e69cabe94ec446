// A sealed box for the dashboard benchmark: the real API in this process (real local adapters) serving the built dist/ui.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { hostArch } from '../../management-api/src/manifest/host-arch.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { startServer } from '../../management-api/src/start-server.js';

/** The adapters of the browser tests: local orchestrator (real processes), beads, events, memory. */
const MANIFEST = '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "local-ruvector"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';

/** A running box and how to call it with its key. */
export interface BenchBox {
  apiUrl: string;
  key: string;
  /** JSON call with the API key (the bench's own requests, not the page's). */
  api(method: string, pathname: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * Start the API on 127.0.0.1 (ephemeral port) under a temporary root, serving the dashboard from
 * `uiRoot`. The seal is written first, as the seal listener would, so /ready answers 200 at once.
 */
export async function startBenchBox(uiRoot: string): Promise<BenchBox> {
  const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-dashboard-bench-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: dir });
  for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
  writeFileSync(paths.sealFile, 'sealed\n');
  const loaded = await loadManifestSource(MANIFEST, { targetArch: hostArch(), env: {} });
  if (!loaded.manifest || !loaded.sha256) throw new Error(`dashboard bench: its manifest does not validate: ${JSON.stringify(loaded.diagnostics)}`);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      env: {},
      manifest: loaded.manifest,
      manifestSha256: loaded.sha256,
      paths,
      logger: createLogger({ level: 'silent' }),
      listen: { apiHost: '127.0.0.1', apiPort: 0, metricsHost: '127.0.0.1', metricsPort: 0 },
      ui: { root: uiRoot },
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const key = readFileSync(paths.apiKeyFile, 'utf8').trim();
  const api: BenchBox['api'] = async (method, pathname, body) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(server.apiUrl + pathname, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  for (let i = 0; (await api('GET', '/ready')).status !== 200; i++) {
    if (i > 200) throw new Error('dashboard bench: the box did not become ready within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    apiUrl: server.apiUrl,
    key,
    api,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
