// What the agent sandbox is configured by: the manifest's [sandbox] table and the box's layout, ports and launcher.
import path from 'node:path';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import type { ProcMode } from './bwrap-argv.js';
import type { NamespacesSetting } from './namespace-sandbox.js';

/** The settings of the agent sandbox (built by {@link sandboxSettings}). */
export interface SandboxSettings {
  /** sandbox.enabled: false runs agents unconfined (rule E042 requires an audit acknowledgement, W016 warns). */
  enabled: boolean;
  limits: Readonly<NormalizedManifest['sandbox']['limits']>;
  /** The egress proxy's port on 127.0.0.1 (agents may connect to it): the port it listens on once known, else sandbox.egress.port. */
  egressPort: () => number | undefined;
  /**
   * The port of the API's agents' listener once it listens (agents call the API and the provider
   * broker there, and may connect to no other port of the API); undefined before.
   */
  apiPort: () => number | undefined;
  /** sandbox.egress.allow_ports when sandbox.egress.transparent: the ports transparent egress listens on in bubblewrap (none when absent: off). */
  egressAllowPorts?: readonly number[];
  /** The box's layout: what agents never see (state, run, logs, workspace, temporary files). */
  paths: RuntimePaths;
  /** The launcher binary; default the installation's (installedLauncher). */
  launcher?: string;
  /** Require a Landlock ABI above the policy's own: how tests simulate a kernel that lacks what is needed. */
  requireAbi?: number;
  /** Read-only roots besides the system directories and the installation (default: none). */
  extraReadOnly?: readonly string[];
  /** sandbox.namespaces: bubblewrap per agent around the launcher (auto, required, off). */
  namespaces: NamespacesSetting;
  /** The bwrap executable; default the one on the API's PATH. */
  bwrap?: string;
  /** How /proc is given inside bubblewrap instead of the probe's verdict: how tests run the container's fallback. */
  proc?: ProcMode;
  /**
   * Where a root box claims its block of agent uids (default DEFAULT_CLAIMS_DIR, machine-wide):
   * how tests keep their claims to themselves.
   */
  agentUidClaims?: string;
}

/** The sandbox settings of a box from its manifest, layout, API port and (once it is known) the egress proxy's port. */
export function sandboxSettings(
  manifest: NormalizedManifest,
  paths: RuntimePaths,
  apiPort: () => number | undefined,
  egressPort: () => number | undefined = () => undefined,
): SandboxSettings {
  return {
    enabled: manifest.sandbox.enabled,
    namespaces: manifest.sandbox.namespaces,
    limits: manifest.sandbox.limits,
    egressPort: () => egressPort() ?? manifest.sandbox.egress.port,
    ...(manifest.sandbox.egress.transparent ? { egressAllowPorts: manifest.sandbox.egress.allow_ports } : {}),
    apiPort,
    paths,
  };
}

/**
 * The directories no agent may read: the whole local root when the box is re-rooted (its state,
 * secrets and configuration live there), otherwise the state volume (secrets included), the run
 * directory (supervisord's socket, seal), logs, the workspace (each agent gets its own directory
 * back) and the shared temporary directory.
 */
export function hiddenPaths(paths: RuntimePaths): string[] {
  const dirs = [paths.stateDir, paths.secretsDir, paths.runDir, paths.logDir, paths.workspaceDir, paths.tmpDir];
  return paths.root === path.parse(paths.root).root ? dirs : [paths.root, ...dirs];
}
