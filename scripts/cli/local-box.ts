// Prepares a box for the local embedded mode: renders the same configs the image uses, re-rooted
// under a local directory, and describes how to start the very same entrypoint there.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { renderManifest, writeRendered, type NixRender } from './render-box.js';
import { repoPath } from './repo-path.js';
import { runtimePaths, type RuntimePaths } from '../../management-api/src/runtime-paths.js';
import { listenerUrl } from '../../management-api/src/grammar/url.js';
import type { RuleContext } from '../../management-api/src/manifest/rules/rule.js';
import type { LoadResult } from '../../management-api/src/manifest/load-manifest.js';

/** A box ready to start. */
export interface LocalBox {
  paths: RuntimePaths;
  configDir: string;
  /** Environment for the entrypoint (no secrets: those live in 0600 files under the root). */
  env: Record<string, string>;
  apiUrl: string;
  metricsUrl: string;
  rendered: NixRender;
}

/** Variables passed through from the caller's environment; everything else is dropped. */
const PASSED_THROUGH = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'TERM', 'TMPDIR'];

/**
 * Render `manifestFile` under `root` and build the entrypoint's environment. Returns the
 * validation result alone when the manifest is invalid.
 */
export async function prepareLocalBox(
  manifestFile: string,
  root: string,
  context: RuleContext,
  env: NodeJS.ProcessEnv,
): Promise<{ validation: LoadResult; box?: LocalBox }> {
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  const configDir = paths.configDir;
  const { validation, rendered } = await renderManifest({
    manifestFile,
    outDir: configDir,
    root: paths.root,
    bin: repoPath('config/bin'),
    workspaceDir: paths.workspaceDir,
    context,
  });
  if (!rendered || !validation.manifest) return { validation };
  await mkdir(configDir, { recursive: true });
  await writeRendered(configDir, rendered.files);
  // The box boots from a snapshot of the manifest, as the image does: edits apply on the next start.
  const manifestCopy = paths.manifestFile;
  if (path.resolve(manifestFile) !== manifestCopy) await copyFile(manifestFile, manifestCopy);
  // writeRendered wrote artifacts.json, the probe list stage A runs.
  const artifactsFile = paths.artifactsFile;

  const m = validation.manifest;
  const entryEnv: Record<string, string> = {};
  for (const name of PASSED_THROUGH) if (env[name] !== undefined) entryEnv[name] = env[name]!;
  // Overrides for parallel runs and the variables the manifest names (how external backends' credentials reach their adapters).
  const named = [
    ...Object.values(m.providers).map((p) => p?.env_var ?? ''),
    m.integrations.memory.connection_env,
    m.integrations.beads.token_env,
    m.integrations.pods.token_env,
    m.integrations.events.token_env,
  ];
  for (const name of [...Object.keys(env).filter((k) => k.startsWith('AGENTBOX_')), ...named]) if (name && env[name] !== undefined) entryEnv[name] = env[name]!;
  Object.assign(entryEnv, {
    AGENTBOX_ROOT: paths.root,
    AGENTBOX_MANIFEST: manifestCopy,
    AGENTBOX_ARTIFACTS: artifactsFile,
    AGENTBOX_SUPERVISORD_CONF: paths.supervisordConf,
    AGENTBOX_LOCAL: '1',
  });
  const apiPort = env['AGENTBOX_API_PORT'] ?? String(m.api.port);
  const metricsPort = env['AGENTBOX_METRICS_PORT'] ?? String(m.observability.metrics_port);
  return {
    validation,
    box: {
      paths,
      configDir,
      env: entryEnv,
      apiUrl: listenerUrl(m.api.bind, Number(apiPort)),
      metricsUrl: listenerUrl(m.observability.metrics_bind, Number(metricsPort), '/metrics'),
      rendered,
    },
  };
}
