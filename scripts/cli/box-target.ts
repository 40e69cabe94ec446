// Finds the box a command talks to: its API URL (from --url, else the running box under the root as
// the registry of boxes knows it, else the manifest's api.bind/port and AGENTBOX_API_PORT, unless another
// root's box runs there) and its API key file (under --root / AGENTBOX_ROOT / ./.agentbox), which is
// sent only to a box that proves it holds that key already.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadManifestFile } from '../../management-api/src/manifest/load-manifest.js';
import { hostArch, UnknownHostArchError } from '../../management-api/src/manifest/host-arch.js';
import type { TargetArch } from '../../management-api/src/manifest/rules/rule.js';
import { runtimePaths, type RuntimePaths } from '../../management-api/src/runtime-paths.js';
import { listenerUrl } from '../../management-api/src/grammar/url.js';
import { UserError } from './cli-errors.js';
import { boxAt, registryDir, runningBoxes } from './box-registry.js';
import { checkKeyProof } from './key-proof-check.js';
import { boxFetch, BoxUnreachable } from './box-fetch.js';

/** Options shared by commands that talk to a running box. */
export const targetOptions = {
  url: { type: 'string' },
  manifest: { type: 'string' },
  root: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The option lines of their --help. */
export const targetHelp = `  --url URL        the box's API (default: the box running under --root, else from the manifest, http://<api.bind>:<api.port>)
  --manifest FILE  the manifest the box runs (default ./agentbox.toml)
  --root DIR       the box's local root, for the API key and supervisord socket (default $AGENTBOX_ROOT or ./.agentbox)
  --json           print one JSON object`;

/** Where the box is and how to authenticate to it. */
export interface BoxTarget {
  url: string;
  paths: RuntimePaths;
  supervisordConf: string;
  /** Bearer key, when the key file is readable. */
  key?: string;
}

/** Resolve the target box from command-line values and the environment. */
export async function resolveTarget(values: { url?: string; manifest?: string; root?: string }, env = process.env): Promise<BoxTarget> {
  const root = path.resolve(values.root ?? env['AGENTBOX_ROOT'] ?? '.agentbox');
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  // A box started with its ports chosen free (AGENTBOX_API_PORT=0) is not where its manifest says: the registry knows.
  let url = values.url ?? boxAt(root, registryDir(env))?.apiUrl;
  if (!url) {
    const manifestFile = values.manifest ?? 'agentbox.toml';
    const loaded = await loadManifestFile(manifestFile, { targetArch: manifestArch(), env: {} });
    if (!loaded.manifest)
      throw new UserError(`cannot read the API address from ${manifestFile} (${loaded.diagnostics[0]?.message ?? 'invalid'}); pass --url`, 2);
    url = listenerUrl(loaded.manifest.api.bind, Number(env['AGENTBOX_API_PORT'] ?? loaded.manifest.api.port));
    refuseAnotherBox(root, url, env);
  }
  url = url.replace(/\/+$/, '');
  const key = await readApiKey(paths);
  // The key goes only to a box that proves it holds it already.
  if (key) await checkKeyProof(url, key, paths.apiKeyFile);
  return { url, paths, supervisordConf: paths.supervisordConf, ...(key ? { key } : {}) };
}

/**
 * The manifest's address is a guess for a box the registry does not list (one started another way,
 * as in a container). When the registry says another root's box answers there, this root's box is
 * not running: its API key is never sent to the other box, and the user is told which one it is.
 */
function refuseAnotherBox(root: string, url: string, env: NodeJS.ProcessEnv): void {
  const there = runningBoxes(registryDir(env)).find((b) => b.root !== root && sameListener(b.apiUrl, url));
  if (there)
    throw new UserError(
      `no box is running under ${root}: the box at ${url} (the manifest's address) is the one under ${there.root}. Start this one (\`agentbox up --local --root ${root}\`), or pass --root ${there.root} for that one; \`agentbox boxes\` lists the running boxes`,
      1,
    );
}

/** Two API URLs naming one listener (a trailing slash and the default port aside). */
function sameListener(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return x.protocol === y.protocol && x.hostname === y.hostname && x.port === y.port;
  } catch {
    return false;
  }
}

/** The box's API key from its root, when the file is there and readable (a request without it is answered 401, which says so). */
export async function readApiKey(paths: RuntimePaths): Promise<string | undefined> {
  return (await readFile(paths.apiKeyFile, 'utf8').catch(() => '')).trim() || undefined;
}

/** The architecture the manifest is read for: this machine's, where the box runs locally. */
function manifestArch(): TargetArch {
  try {
    return hostArch();
  } catch (err) {
    if (err instanceof UnknownHostArchError) throw new UserError(`${err.message}; pass --url to name the box's API`, 2);
    throw err;
  }
}

/** GET `pathname` on the box; resolves to status and parsed JSON (or text). */
export async function getFromBox(target: BoxTarget, pathname: string): Promise<{ status: number; body: unknown }> {
  const url = target.url + pathname;
  const hint = 'Is the box running (`npm start`)? `agentbox boxes` lists the running boxes and their API URLs: pass --root or --url';
  const res = await boxFetch(url, target.key, { signal: AbortSignal.timeout(5000) }, { hint });
  const text = await res.text().catch((err: unknown) => {
    throw new BoxUnreachable(url, err, hint);
  });
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (e.g. the Prometheus exposition).
  }
  return { status: res.status, body };
}
