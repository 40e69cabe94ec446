// Bundles the compiled CLI entry (dist/scripts/agentbox.js) into dist/bin/, so `agentbox config
// validate` loads a few files instead of dozens of modules at start-up. npm packages stay external.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await build({
  entryPoints: [path.join(repo, 'dist/scripts/agentbox.js')],
  outdir: path.join(repo, 'dist/bin'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  minify: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});
