// The API version (package.json), found from the source or the compiled tree alike.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The `version` of the Agentbox package.json nearest above this module. */
export function apiVersion(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agentbox' && pkg.version) return (cached = pkg.version);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (cached = '0.0.0-unknown');
    dir = parent;
  }
}

/** The image hash the image build sets in AGENTBOX_IMAGE_HASH, or `dev` outside an image. */
export function imageHash(env: Readonly<Record<string, string | undefined>>): string {
  return env['AGENTBOX_IMAGE_HASH'] || 'dev';
}
