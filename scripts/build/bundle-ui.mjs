// Bundles the dashboard (management-api/ui) into dist/ui: index.html plus hashed, minified
// assets/app-<hash>.js and .css, no source maps (the image ships dist/). Fails when the shipped
// JS + CSS exceed the gzip budget, so a heavy dependency shows up at build time.
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
/** JS + CSS shipped, gzip-compressed, at most this many bytes. */
const BUDGET_GZIP_BYTES = 150 * 1024;

// Built beside the target and swapped in at the end, so a server reading dist/ui never sees half a build.
const staging = `${target}.tmp-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
try {
  const result = await build({
    entryPoints: { app: path.join(source, 'src/main.tsx') },
    outdir: path.join(staging, 'assets'),
    entryNames: '[name]-[hash]',
    bundle: true,
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
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.resolve(repo, f));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`bundle-ui: expected one .js and one .css output, got ${outputs.join(', ')}`);

  let total = 0;
  for (const file of [js, css]) {
    const gz = gzipSync(readFileSync(file), { level: 9 }).length;
    total += gz;
    console.log(`${target.startsWith(repo + path.sep) ? path.relative(repo, target) : target}/assets/${path.basename(file)}: ${(gz / 1024).toFixed(1)} KiB gzip`);
  }
  if (total > BUDGET_GZIP_BYTES)
    throw new Error(`bundle-ui: JS + CSS are ${(total / 1024).toFixed(1)} KiB gzip, over the ${BUDGET_GZIP_BYTES / 1024} KiB budget (scripts/build/bundle-ui.mjs)`);

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
