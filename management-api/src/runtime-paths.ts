// Every filesystem path the box uses at run time, in one place, re-rootable with AGENTBOX_ROOT.
// lib/paths.nix describes the same layout for the generated configs.
import path from 'node:path';

/** The runtime directories and files of a box. All absolute. */
export interface RuntimePaths {
  /** The directory every other path is under: `/` in the image, a local directory elsewhere. */
  root: string;
  /** Volatile run state (tmpfs in the image): `/run/agentbox`. */
  runDir: string;
  /** Durable state volume: `/var/lib/agentbox`. */
  stateDir: string;
  /** The agents' working tree: `/workspace`. */
  workspaceDir: string;
  /** Log files: `/var/log/agentbox`. */
  logDir: string;
  /** Written atomically by the seal listener once every readiness-required programme runs. */
  sealFile: string;
  /** JSON `{reason}`: stage B failed (the seal never comes), or the seal timed out (cleared if it comes later). */
  bootstrapFailedFile: string;
  /** Secrets on the state volume (0700). */
  secretsDir: string;
  /** The management API bearer key (0600). */
  apiKeyFile: string;
  /** supervisord's XML-RPC unix socket, when supervisord runs. */
  supervisorSocket: string;
  /** Rendered configuration: `/etc/agentbox`. */
  configDir: string;
  /** The manifest the box runs with: `/etc/agentbox/agentbox.toml`. */
  manifestFile: string;
}

/**
 * Resolve the runtime paths. `AGENTBOX_ROOT` (absolute or relative to the working directory)
 * re-roots all of them, so the same code runs in the image and in a local directory.
 */
export function runtimePaths(env: Readonly<Record<string, string | undefined>> = process.env): RuntimePaths {
  const root = path.resolve(env['AGENTBOX_ROOT'] || '/');
  const under = (p: string): string => path.join(root, p);
  const runDir = under('run/agentbox');
  const stateDir = under('var/lib/agentbox');
  const secretsDir = path.join(stateDir, 'secrets');
  return {
    root,
    runDir,
    stateDir,
    workspaceDir: under('workspace'),
    logDir: under('var/log/agentbox'),
    sealFile: path.join(runDir, 'bootstrap.done'),
    bootstrapFailedFile: path.join(runDir, 'bootstrap.failed'),
    secretsDir,
    apiKeyFile: path.join(secretsDir, 'api-key'),
    supervisorSocket: path.join(runDir, 'supervisord.sock'),
    configDir: under('etc/agentbox'),
    manifestFile: under('etc/agentbox/agentbox.toml'),
  };
}

/** The directories /ready requires to be writable, by requirement name. */
export function requiredMounts(paths: RuntimePaths): ReadonlyArray<{ name: string; path: string }> {
  return [
    { name: 'state', path: paths.stateDir },
    { name: 'workspace', path: paths.workspaceDir },
    { name: 'run', path: paths.runDir },
  ];
}
