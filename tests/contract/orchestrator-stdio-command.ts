// The compiled reference stdio orchestrator the external-stdio tests run, and a check that it is current.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { MESH_CLIENT, onlySlot } from './pods-harness.js';

/** The entry point, as `npm run build` compiles it. */
export const STDIO_ORCHESTRATOR = path.join(repoRoot, 'dist/management-api/src/adapters/orchestrator/stdio-orchestrator-main.js');

/**
 * Throw unless every orchestrator source has a compiled file at least as new: a child process runs
 * the compiled code, and testing a stale build would test something else.
 */
export function assertBuilt(): void {
  const src = path.join(repoRoot, 'management-api/src/adapters/orchestrator');
  const out = path.dirname(STDIO_ORCHESTRATOR);
  for (const name of readdirSync(src).filter((n) => n.endsWith('.ts'))) {
    const compiled = path.join(out, name.replace(/\.ts$/, '.js'));
    let stale: boolean;
    try {
      stale = statSync(compiled).mtimeMs < statSync(path.join(src, name)).mtimeMs;
    } catch {
      stale = true;
    }
    if (stale) throw new Error(`${path.relative(repoRoot, compiled)} is missing or older than its source: run \`npm run build\` first`);
  }
}

/** Manifest text selecting external-stdio with the reference orchestrator (or another command). */
export function stdioManifest(command = process.execPath, args: string[] = [STDIO_ORCHESTRATOR]): string {
  return onlySlot('orchestrator', 'external-stdio', `${MESH_CLIENT}[integrations.orchestrator]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n`);
}
