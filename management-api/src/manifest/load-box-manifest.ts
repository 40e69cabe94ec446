// The box's own manifest as each of its programmes loads it: the file the environment names, checked for this machine's
// architecture with that environment, or (for the helper programmes) as stage A checked it at this boot.
import { manifestFileFrom, runtimePaths } from '../runtime-paths.js';
import { hostArch } from './host-arch.js';
import { readValidatedManifest, type ValidatedManifest } from './validated-manifest.js';

/**
 * Load and require the manifest the box runs with: `file`, by default AGENTBOX_MANIFEST or the
 * runtime layout's manifest file (runtime-paths.ts manifestFileFrom), with the rules run for this
 * machine's architecture (host-arch.ts) and `env`. Throws ManifestInvalidError with every
 * diagnostic when it is not valid, UnknownHostArchError on a machine no box is built for.
 * The validator and the rules are loaded here, on first use, not with this module: a programme
 * that finds stage A's result (loadValidatedBoxManifest) never loads them.
 */
export async function loadBoxManifest(env: Readonly<Record<string, string | undefined>>, file: string = manifestFileFrom(env)): Promise<ValidatedManifest> {
  const { requireManifest } = await import('./load-manifest.js');
  return requireManifest(file, { targetArch: hostArch(), env });
}

/**
 * The box's manifest as stage A validated it at this boot (validated-manifest.ts), when that
 * result is there and still holds for the file; else loaded and checked as loadBoxManifest does.
 */
export async function loadValidatedBoxManifest(env: Readonly<Record<string, string | undefined>>): Promise<ValidatedManifest> {
  const file = manifestFileFrom(env);
  return (await readValidatedManifest(runtimePaths(env).validatedManifestFile, file, hostArch())) ?? loadBoxManifest(env, file);
}
