// The stand-in provider bundled into one ES module that plain Node runs, for a box in a container to reach on its own loopback (the image has no TypeScript loader).
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stand-in-main.ts');

/** The text of the bundle: `node FILE PORT` serves the stand-in on 127.0.0.1:PORT. */
export async function standInBundle(): Promise<string> {
  const out = await build({ entryPoints: [entry], bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
  return out.outputFiles[0]!.text;
}
