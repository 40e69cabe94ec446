// Bundles the dashboard (management-api/ui) into dist/ui: index.html plus hashed, minified
// assets/app-<hash>.js and .css and the chunks the page loads on demand (the terminal emulator),
// no source maps (the image ships dist/). Fails when the page's own JS + CSS or a chunk exceed
// their gzip budgets, so a heavy dependency shows up at build time.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const source = path.join(repo, 'management-api/ui');
// `--outdir DIR` builds elsewhere (the browser tests build their own copy, leaving dist/ui alone).
const outArg = process.argv.indexOf('--outdir');
const target = outArg > 0 && process.argv[outArg + 1] ? path.resolve(process.argv[outArg + 1]) : path.join(repo, 'dist/ui');
/** JS + CSS the page loads, gzip-compressed, at most this many bytes. */
const BUDGET_GZIP_BYTES = 150 * 1024;
/** Each chunk loaded on demand (a dynamic `import()`), gzip-compressed, at most this many bytes. */
const CHUNK_BUDGET_GZIP_BYTES = 150 * 1024;

// Built beside the target and swapped in at the end, so a server reading dist/ui never sees half a build.
const staging = `${target}.tmp-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
try {
  const result = await build({
    entryPoints: { app: path.join(source, 'src/main.tsx') },
    outdir: path.join(staging, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    bundle: true,
    // A dynamic import() becomes a chunk of its own, fetched when the page first needs it.
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: path.join(source, 'tsconfig.json'),
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const shown = (file) => `${target.startsWith(repo + path.sep) ? path.relative(repo, target) : target}/assets/${path.basename(file)}`;
  const gzipOf = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
  const outputs = Object.entries(result.metafile.outputs).map(([f, o]) => ({ file: path.resolve(repo, f), entry: o.entryPoint, css: o.cssBundle }));
  const main = outputs.find((o) => o.file.endsWith('.js') && o.entry && path.resolve(repo, o.entry) === path.join(source, 'src/main.tsx'));
  const js = main?.file;
  const css = main?.css && path.resolve(repo, main.css);
  if (!js || !css) throw new Error(`bundle-ui: expected the page's .js and .css, got ${outputs.map((o) => o.file).join(', ')}`);
  const chunks = outputs.filter((o) => o.file !== js && o.file !== css);
  // The page links one stylesheet: CSS imported by a chunk is in it already (esbuild puts it there), so another .css would be shipped and never used.
  const stray = chunks.filter((o) => o.file.endsWith('.css'));
  if (stray.length > 0)
    throw new Error(
      `bundle-ui: a chunk has a stylesheet of its own (${stray.map((o) => path.basename(o.file)).join(', ')}); import its CSS from the page's side`,
    );

  let total = 0;
  for (const file of [js, css]) {
    const gz = gzipOf(file);
    total += gz;
    console.log(`${shown(file)}: ${(gz / 1024).toFixed(1)} KiB gzip`);
  }
  if (total > BUDGET_GZIP_BYTES)
    throw new Error(
      `bundle-ui: JS + CSS are ${(total / 1024).toFixed(1)} KiB gzip, over the ${BUDGET_GZIP_BYTES / 1024} KiB budget (scripts/build/bundle-ui.mjs)`,
    );
  for (const { file } of chunks) {
    const gz = gzipOf(file);
    console.log(`${shown(file)}: ${(gz / 1024).toFixed(1)} KiB gzip, loaded on demand`);
    if (gz > CHUNK_BUDGET_GZIP_BYTES)
      throw new Error(
        `bundle-ui: ${path.basename(file)} is ${(gz / 1024).toFixed(1)} KiB gzip, over the ${CHUNK_BUDGET_GZIP_BYTES / 1024} KiB budget of a chunk (scripts/build/bundle-ui.mjs)`,
      );
  }

  // Relative names: the page is served at /ui/, so they resolve under /ui/assets/.
  const html = readFileSync(path.join(source, 'index.html'), 'utf8')
    .replace('%CSS%', `assets/${path.basename(css)}`)
    .replace('%JS%', `assets/${path.basename(js)}`)
    .replace(/^\s*<!--.*-->\n/m, '');
  writeFileSync(path.join(staging, 'index.html'), html);
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
