// The box's own manifest as each of its programmes loads it: the file the environment names, checked for this machine's architecture with that environment.
import { manifestFileFrom } from '../runtime-paths.js';
import { hostArch } from './host-arch.js';
import { requireManifest } from './load-manifest.js';

/**
 * Load and require the manifest the box runs with: `file`, by default AGENTBOX_MANIFEST or the
 * runtime layout's manifest file (runtime-paths.ts manifestFileFrom), with the rules run for this
 * machine's architecture (host-arch.ts) and `env`. Throws ManifestInvalidError with every
 * diagnostic when it is not valid, UnknownHostArchError on a machine no box is built for.
 */
export async function loadBoxManifest(
  env: Readonly<Record<string, string | undefined>>,
  file: string = manifestFileFrom(env),
): ReturnType<typeof requireManifest> {
  return requireManifest(file, { targetArch: hostArch(), env });
}
