// A real API serving a dashboard bundle built for the test: the build's own script, a folder of the test's own, a sealed box.
import { execFile } from 'node:child_process';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer, waitFor, type TestServer } from '../../api/support/harness.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** How the box is started: sealed or not, its clock, and (for a box with an egress proxy) its root and the proxy's control socket. */
export interface UiBoxOptions {
  seal?: boolean;
  clock?: () => Date;
  root?: Parameters<typeof startTestServer>[0] extends infer O ? (O extends { root?: infer R } ? R : never) : never;
  egress?: Parameters<typeof startTestServer>[0] extends infer O ? (O extends { egress?: infer E } ? E : never) : never;
  /** The mutation rate limit, lower than the box's default (a test of what a client does with 429s). */
  limits?: Parameters<typeof startTestServer>[0] extends infer O ? (O extends { limits?: infer L } ? L : never) : never;
}

/** A started box with its dashboard, and how to stop both. */
export interface UiBox {
  box: TestServer;
  /** The built dashboard this box serves (index.html, assets/). */
  uiRoot: string;
  close(): Promise<void>;
}

/**
 * Build the dashboard from the sources with scripts/build/bundle-ui.mjs into a temporary folder (dist/ui
 * stays as the build left it for other tests and `npm start`), start the API on it with `toml`,
 * and (unless `seal: false`) seal the box, so /ready answers 200. `clock` is the box's (a test moves it to pass deadlines).
 */
export async function startUiBox(toml: string, options: UiBoxOptions = {}): Promise<UiBox> {
  const uiRoot = await mkdtemp(path.join(os.tmpdir(), 'agentbox-ui-'));
  try {
    await promisify(execFile)(process.execPath, [path.join(repo, 'scripts/build/bundle-ui.mjs'), '--outdir', uiRoot]);
    const box = await startTestServer({
      toml,
      ui: { root: uiRoot },
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.root ? { root: options.root } : {}),
      ...(options.egress ? { egress: options.egress } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    });
    if (options.seal !== false) {
      await sealBox(box);
      await waitFor('READY', async () => (await box.api('/ready', { auth: false })).status === 200, 10_000);
    }
    return {
      box,
      uiRoot,
      async close() {
        await box.close();
        await rm(uiRoot, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(uiRoot, { recursive: true, force: true });
    throw err;
  }
}

/** Write the bootstrap seal the way the seal listener does (a temp file renamed into place). */
export async function sealBox(box: TestServer): Promise<void> {
  await writeFile(`${box.paths.sealFile}.tmp`, 'sealed\n');
  await rename(`${box.paths.sealFile}.tmp`, box.paths.sealFile);
}
