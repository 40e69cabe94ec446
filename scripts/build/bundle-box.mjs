// Bundles the box's own programmes (each process entry of dist/management-api/src/bin/) and the
// worker threads they start (every dist/management-api/src/**/*-worker.js) into dist/box/, which is
// what config/bin's wrappers run.
//
// Why: a box starts five Node processes, and before this each resolved, read and compiled a few
// hundred modules one by one (the API alone about half of its start-up CPU). Loading one file and
// a few shared chunks instead cut a box's start-up from about 1.7 to 1.2 CPU-seconds, which is
// what lets several boxes start side by side on a small machine.
//
// Workers are entries of their own, named as their source file: the code that starts one asks for
// `new URL('./<name>-worker.js', import.meta.url)`, and every chunk sits beside them in dist/box/.
// Kept external: native addons (loaded from node_modules at run time), and packages that read
// their own files next to their code (@fastify/swagger reads its package.json).
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeBundle } from './node-bundle.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const compiled = path.join(repo, 'dist/management-api/src');
const outdir = path.join(repo, 'dist/box');

/** Every `*-worker.js` under `dir`, recursively. */
function workers(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? workers(path.join(dir, e.name)) : e.name.endsWith('-worker.js') ? [path.join(dir, e.name)] : [],
  );
}

const entryPoints = {};
const add = (file) => {
  const name = path.basename(file, '.js');
  if (entryPoints[name]) throw new Error(`bundle-box: two entries are named ${name} (${entryPoints[name]} and ${file}); rename one`);
  entryPoints[name] = file;
};
for (const f of readdirSync(path.join(compiled, 'bin')).filter((f) => f.endsWith('.js'))) add(path.join(compiled, 'bin', f));
for (const f of workers(compiled)) add(f);

// Chunk names carry content hashes: clear the old ones so dist/box holds one consistent build.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints,
  outdir,
  ...nodeBundle,
  external: ['better-sqlite3', '@ruvector/*', 'node-pty', '@fastify/swagger'],
  // CommonJS packages bundled into ESM still call require() for Node's built-ins and the externals.
  banner: { js: "import { createRequire as __agentboxRequire } from 'node:module'; const require = __agentboxRequire(import.meta.url);" },
  // Not minified: the box's logs carry stack traces an operator reads.
  sourcemap: 'linked',
  logLevel: 'warning',
});
