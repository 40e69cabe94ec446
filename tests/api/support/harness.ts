// Starts the real API (both listeners, ephemeral ports) under a temporary AGENTBOX_ROOT, with captured logs.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';
import { loadManifestSource, type NormalizedManifest } from '../../../management-api/src/manifest/load-manifest.js';
import { createLogger, type LogLevel } from '../../../management-api/src/observability/logger.js';
import { runtimePaths, type RuntimePaths } from '../../../management-api/src/runtime-paths.js';
import { startServer, type RunningServer, type StartOptions } from '../../../management-api/src/start-server.js';

/** Resolver and readiness timings short enough for tests. */
/**
 * The slots' timing in tests: checks and retries come often, so a change is seen at once; the
 * deadlines (a slot's connect, a health answer) are the product's own scale, because a test that is
 * not about a deadline must not fail when a loaded machine is slow. A test about a deadline sets a
 * tight one itself, against a backend that never answers (resolver.test.ts, degraded-slots.test.ts).
 */
export const FAST_TIMING = {
  connectTimeoutMs: 10_000,
  healthIntervalMs: 100,
  healthTimeoutMs: 5_000,
  reconnectInitialMs: 50,
  reconnectMaxMs: 200,
  sealRecheckMs: 200,
  mountCheckMs: 100,
};

/** A manifest with every slot off (override per test). */
export const ALL_OFF = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n';

/** A temporary box root with the three required mounts. */
export async function makeRoot(options: { mounts?: boolean } = {}): Promise<{ dir: string; paths: RuntimePaths; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentbox-api-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: dir });
  if (options.mounts !== false) for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) await mkdir(d, { recursive: true });
  return { dir, paths, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A box root at `dir` (a mounted test filesystem, say), with its run, state and workspace
 * directories made; `cleanup` runs when the test server closes (the caller unmounts after).
 */
export async function rootAt(dir: string, cleanup: () => Promise<void> = async () => undefined): Promise<Awaited<ReturnType<typeof makeRoot>>> {
  const paths = runtimePaths({ AGENTBOX_ROOT: dir });
  for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) await mkdir(d, { recursive: true });
  return { dir, paths, cleanup };
}

/** Validate manifest text as the server would. */
export async function manifestFrom(toml: string): Promise<{ manifest: NormalizedManifest; sha256: string }> {
  const r = await loadManifestSource(toml, { targetArch: 'x86_64', env: {} });
  if (!r.manifest || !r.sha256 || r.exitCode !== 0) throw new Error(`test manifest invalid: ${JSON.stringify(r.diagnostics)}`);
  return { manifest: r.manifest, sha256: r.sha256 };
}

/** A pino destination that keeps every line. */
export function captureLogs(): { destination: DestinationStream; text: () => string; events: (name: string) => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  return {
    destination: { write: (s: string) => void chunks.push(s) },
    text: () => chunks.join(''),
    events: (name) =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((o) => o['event'] === name),
  };
}

/** A started test server and helpers around it. */
export interface TestServer {
  server: RunningServer;
  paths: RuntimePaths;
  key: string;
  logs: ReturnType<typeof captureLogs>;
  /** fetch against the API; `auth: false` sends no key, a string sends that key. */
  api(
    pathname: string,
    init?: { method?: string; body?: unknown; rawBody?: string; auth?: boolean | string; headers?: Record<string, string> },
  ): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }>;
  close(): Promise<void>;
}

/** Start the real server on 127.0.0.1 with ephemeral ports (or the API on `apiPort`), in a fresh root or `root`. */
export async function startTestServer(
  options: { toml?: string; logLevel?: LogLevel; apiPort?: number; advertiseUrl?: string; root?: Awaited<ReturnType<typeof makeRoot>> } & Partial<
    Omit<StartOptions, 'manifest' | 'manifestSha256' | 'paths' | 'logger' | 'listen'>
  > = {},
): Promise<TestServer> {
  const root = options.root ?? (await makeRoot());
  const { manifest, sha256 } = await manifestFrom(options.toml ?? ALL_OFF);
  const logs = captureLogs();
  const logger = createLogger({ level: options.logLevel ?? 'info', destination: logs.destination });
  const { toml: _toml, logLevel: _level, apiPort, advertiseUrl, root: _root, ...rest } = options;
  let server: RunningServer;
  try {
    server = await startServer({
      env: {},
      ...rest,
      timing: { ...FAST_TIMING, ...rest.timing },
      manifest,
      manifestSha256: sha256,
      paths: root.paths,
      logger,
      listen: {
        apiHost: '127.0.0.1',
        apiPort: apiPort ?? 0,
        metricsHost: '127.0.0.1',
        metricsPort: 0,
        ...(advertiseUrl !== undefined ? { advertiseUrl } : {}),
      },
    });
  } catch (err) {
    // The start's own error is the one to see: a programme of the failed start may still be
    // writing under the root, and the clean-up's ENOTEMPTY must not take its place.
    await root.cleanup().catch(() => undefined);
    throw err;
  }
  const key = (await readFile(root.paths.apiKeyFile, 'utf8')).trim();
  let closing: Promise<void> | undefined;
  return {
    server,
    paths: root.paths,
    key,
    logs,
    async api(pathname, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.auth !== false) headers['authorization'] = `Bearer ${typeof init.auth === 'string' ? init.auth : key}`;
      let body: string | undefined = init.rawBody;
      if (init.body !== undefined) body = JSON.stringify(init.body);
      if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      const res = await fetch(server.apiUrl + pathname, {
        method: init.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await res.text();
      return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
    },
    async close() {
      closing ??= server.close().finally(() => root.cleanup());
      await closing;
    },
  };
}

/** Poll `check` until it returns a truthy value or `ms` elapse. */
export async function waitFor<T>(what: string, check: () => Promise<T> | T, ms = 5_000): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as Exclude<T, undefined | null | false>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
