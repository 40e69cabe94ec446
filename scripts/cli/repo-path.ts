// Resolves files that ship with Agentbox (docs, schema, lib) from the compiled or source CLI.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled: dist/scripts/cli → three levels up; from source (tests): scripts/cli → two.
const root =
  [path.resolve(here, '../../..'), path.resolve(here, '../..')].find((p) => existsSync(path.join(p, 'schema/agentbox.schema.json'))) ??
  path.resolve(here, '../..');

/** Absolute path of `relative` inside the Agentbox installation. */
export function repoPath(relative: string): string {
  return path.join(root, relative);
}
