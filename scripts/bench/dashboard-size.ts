// Shipped size of the dashboard (dist/ui JS + CSS, raw and gzip -9) beside Preact's own min+gzip for scale.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { repoPath } from '../cli/repo-path.js';

/** Raw and gzip (level 9, what a server would send) byte counts of some files. */
export interface Size {
  files: string[];
  raw: number;
  gzip: number;
}

const gzip9 = (data: Buffer | Uint8Array): number => gzipSync(data, { level: 9 }).length;

/** The JS and CSS under `uiRoot/assets` the page loads (`app-*`; chunks such as the terminal emulator come only when needed). */
export function shippedSize(uiRoot: string): Size {
  const dir = path.join(uiRoot, 'assets');
  const files = readdirSync(dir).filter((f) => f.startsWith('app-') && (f.endsWith('.js') || f.endsWith('.css')));
  if (!files.some((f) => f.endsWith('.js'))) throw new Error(`dashboard bench: no script in ${dir}; run npm run build`);
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const data = readFileSync(path.join(dir, f));
    raw += data.length;
    gz += gzip9(data);
  }
  return { files, raw, gzip: gz };
}

/**
 * Preact alone, as the page imports it (core, hooks, the JSX runtime), bundled and minified by the
 * same esbuild with the same targets: the floor a Preact page cannot go under.
 */
export async function preactSize(): Promise<Size> {
  const result = await build({
    stdin: { contents: "export * from 'preact'; export * from 'preact/hooks'; export * from 'preact/jsx-runtime';", resolveDir: repoPath('.'), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { files: ['preact + preact/hooks + preact/jsx-runtime'], raw: code.length, gzip: gzip9(code) };
}
