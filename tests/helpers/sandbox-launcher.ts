// Builds the agent sandbox launcher (scripts/build/build-launcher.mjs, a no-op when current) for tests that spawn agents.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Compile the launcher when its binary is missing or older than its source. */
export function buildLauncher(): void {
  execFileSync(process.execPath, [path.join(repo, 'scripts/build/build-launcher.mjs')], { stdio: 'inherit' });
}
