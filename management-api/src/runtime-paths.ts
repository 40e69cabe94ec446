// Every filesystem path the box uses at run time, from schema/box-facts.json (the layout
// lib/paths.nix gives the generated configs), re-rootable with AGENTBOX_ROOT.
import path from 'node:path';
import { boxFacts, type RuntimeDirName, type RuntimeFileName } from './box-facts.js';

/** The runtime directories and files of a box. All absolute. */
export interface RuntimePaths extends Record<RuntimeDirName | RuntimeFileName, string> {
  /** The directory every other path is under: `/` in the image, a local directory elsewhere. */
  root: string;
  /** Volatile run state (tmpfs in the image). */
  runDir: string;
  /** Durable state volume. */
  stateDir: string;
  /** Secrets on the state volume (0700). */
  secretsDir: string;
  /** The agents' working tree. */
  workspaceDir: string;
  /** Log files. */
  logDir: string;
  /** Scratch space (tmpfs in the image). */
  tmpDir: string;
  /** Rendered configuration and the manifest the box runs with. */
  configDir: string;
  /**
   * The two sockets agents in their own network namespace reach the box through, and nothing else:
   * bubblewrap binds this directory into their sandbox.
   */
  sandboxSocketDir: string;
  /** Written atomically by the seal listener once every readiness-required programme runs. */
  sealFile: string;
  /** JSON `{reason}`: stage B failed (the seal never comes), or the seal timed out (cleared if it comes later). */
  bootstrapFailedFile: string;
  /** What stage B found out about the box (resources, devices), for the API. */
  runtimeHintsFile: string;
  /** The manifest as stage A validated it at this boot (0600), for stage B and the egress proxy (manifest/validated-manifest.ts). */
  validatedManifestFile: string;
  /** supervisord's XML-RPC unix socket, when supervisord runs. */
  supervisorSocket: string;
  supervisorPidfile: string;
  /** The egress proxy's control socket (0600): the API registers agent credentials and changes the allowlist there. */
  egressControlSocket: string;
  /** The management API bearer key (0600). */
  apiKeyFile: string;
  /** The box's Nostr identity key (0600). */
  identityKeyFile: string;
  /** The manifest the box runs with. */
  manifestFile: string;
  /** The generated supervisord configuration. */
  supervisordConf: string;
  /** The artifact probes stage A runs. */
  artifactsFile: string;
  /** The embedded Nostr relay's events (SQLite, on the state volume, so they survive a restart). */
  relayDatabase: string;
  /** Leads to the API's TCP port: agents in their own network namespace reach the API through it. */
  sandboxApiSocket: string;
  /**
   * The egress proxy listens on it beside its TCP port, for agents in their own network
   * namespace. Bubblewrap binds its directory, not the socket: a socket made again (a restarted
   * proxy) is seen by agents already running.
   */
  sandboxEgressSocket: string;
}

/**
 * Resolve the runtime paths. `AGENTBOX_ROOT` (absolute or relative to the working directory)
 * re-roots all of them, so the same code runs in the image and in a local directory.
 */
export function runtimePaths(env: Readonly<Record<string, string | undefined>> = process.env): RuntimePaths {
  const root = path.resolve(env['AGENTBOX_ROOT'] || '/');
  const layout = { ...boxFacts.runtime.dirs, ...boxFacts.runtime.files };
  const under = Object.fromEntries(Object.entries(layout).map(([name, p]) => [name, path.join(root, p)])) as Record<RuntimeDirName | RuntimeFileName, string>;
  return { root, ...under };
}

/** The directories /ready requires to be writable, by requirement name. */
export function requiredMounts(paths: RuntimePaths): ReadonlyArray<{ name: string; path: string }> {
  return [
    { name: 'state', path: paths.stateDir },
    { name: 'workspace', path: paths.workspaceDir },
    { name: 'run', path: paths.runDir },
  ];
}

/**
 * The manifest a box process runs with: AGENTBOX_MANIFEST when set (the image and the local mode
 * set it), else the runtime layout's manifest file under AGENTBOX_ROOT. Stage A, stage B and the
 * API all resolve it here, so they can never read different files.
 */
export function manifestFileFrom(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env['AGENTBOX_MANIFEST'] || runtimePaths(env).manifestFile;
}
