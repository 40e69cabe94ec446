// The reference stdio orchestrator, bundled from its current source for the external-stdio tests.
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { repoRoot } from '../helpers/cli.js';
import { MESH_CLIENT, onlySlot } from './pods-harness.js';

const entry = path.join(repoRoot, 'management-api/src/adapters/orchestrator/stdio-orchestrator-main.ts');
let bundled: Promise<string> | undefined;

/**
 * The path of a single-file bundle of the reference orchestrator, built once per test process
 * (~0.1 s) from the source in this checkout: the child runs exactly the code under test, never
 * a stale build. node-pty (native) and the terminal emulator cannot be bundled: they stay
 * imports, so the file is written under the checkout's node_modules/.cache, where they resolve.
 */
export function stdioOrchestrator(): Promise<string> {
  bundled ??= (async () => {
    const cache = path.join(repoRoot, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const outfile = path.join(mkdtempSync(path.join(cache, 'agentbox-stdio-orchestrator-')), 'stdio-orchestrator.mjs');
    await build({
      external: ['node-pty', '@xterm/headless', '@xterm/addon-serialize'],
      entryPoints: [entry],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
      // Bundled CommonJS dependencies call require(); an ES module has none of its own.
      banner: { js: "import { createRequire as abxCreateRequire } from 'node:module'; const require = abxCreateRequire(import.meta.url);" },
    });
    return outfile;
  })();
  return bundled;
}

/** Manifest text selecting external-stdio with `command` and `args`. */
export function stdioManifest(command: string, args: string[]): string {
  return onlySlot(
    'orchestrator',
    'external-stdio',
    `${MESH_CLIENT}[integrations.orchestrator]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n`,
  );
}

/** Manifest text selecting external-stdio with the reference orchestrator run by this Node.js. */
export async function referenceManifest(): Promise<string> {
  return stdioManifest(process.execPath, [await stdioOrchestrator()]);
}
