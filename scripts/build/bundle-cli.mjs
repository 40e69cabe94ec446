// Bundles the compiled CLI entry (dist/scripts/cli/agentbox.js) into dist/bin/, so `agentbox config
// validate` loads a few files instead of dozens of modules at start-up. The pure-JS packages the
// commands use (smol-toml, the ajv runtime, toml-eslint-parser …) are bundled too: resolving each
// from node_modules, and lexing a CommonJS one for its exports, cost more at start-up than the
// parse. Only packages that cannot be bundled (native addons) or that the CLI never loads stay
// external.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { nodeBundle } from './node-bundle.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outdir = path.join(repo, 'dist/bin');
// Chunk names carry content hashes: clear the old ones so dist/bin holds one consistent build.
rmSync(outdir, { recursive: true, force: true });
await build({
  // The tar worker `agentbox cp` packs a directory upload in: an entry of its own, beside the chunks, where packTar looks for it.
  entryPoints: {
    agentbox: path.join(repo, 'dist/scripts/cli/agentbox.js'),
    'tar-pack-worker': path.join(repo, 'dist/management-api/src/workspace-files/tar-pack-worker.js'),
  },
  outdir,
  ...nodeBundle,
  external: ['better-sqlite3', '@ruvector/*', 'fastify', 'pino'],
  minify: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});
