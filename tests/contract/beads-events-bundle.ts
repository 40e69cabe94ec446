// Bundles a TypeScript entry with esbuild so child processes start in milliseconds instead of compiling at load.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Under node_modules (ignored by git), so the bundle resolves the native better-sqlite3 from there.
const outDir = path.join(repoRoot, 'node_modules', '.cache', 'agentbox-test-bundles');

/**
 * Bundle `entry` (a .ts file) into one ESM file and return its path. Native modules stay
 * external; the bundle is rebuilt on every call, so it always matches the sources under test.
 */
export async function bundleEntry(entry: string): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, `${path.basename(entry, '.ts')}-${process.pid}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3'],
    logLevel: 'error',
    // Bundled CommonJS dependencies (pino) call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __abxRequire } from 'node:module'; const require = __abxRequire(import.meta.url);" },
  });
  return outfile;
}
