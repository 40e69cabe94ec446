// The egress proxy programme as supervisord starts it, for tests that need it on its own (restarts, credentials).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../helpers/wait.js';

const proxyCli = path.join(fileURLToPath(new URL('../../../', import.meta.url)), 'dist/box/egress-proxy.js');

/** Start the built proxy for the box at `root` with `manifestFile`, on a free port; resolves once it listens. */
export async function startProxyProgramme(root: string, manifestFile: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, [proxyCli], {
    env: { PATH: process.env['PATH'] ?? '', AGENTBOX_ROOT: root, AGENTBOX_MANIFEST: manifestFile, AGENTBOX_EGRESS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const port = await waitFor('the proxy to listen', () => /"event":"EgressProxyListening","port":(\d+)/.exec(out)?.[1]);
  return { proc, port: Number(port) };
}
