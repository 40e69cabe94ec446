// A real Community Solid Server on 127.0.0.1 for the external-solid tests: start (slow, ~10 s), stop, kill.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { freePort } from '../helpers/free-port.js';
export { freePort };

const serverJs = path.join(repoRoot, 'node_modules/@solid/community-server/bin/server.js');

/** A running server. */
export interface SolidServer {
  port: number;
  url: string;
  proc: ChildProcess;
  /** SIGTERM, then SIGKILL after 5 s; resolves once it exited. */
  stop(): Promise<void>;
  /** SIGKILL now (a crash); resolves once it exited. */
  kill(): Promise<void>;
}

/** A TCP port that was free a moment ago. */
/**
 * Start the Community Solid Server on `port`: in memory by default, or file-backed in `dataDir`
 * with a root open to everyone (`file-root.json`), so data outlives a restart.
 */
export async function startSolidServer(options: { port?: number; dataDir?: string } = {}): Promise<SolidServer> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}/`;
  const config = options.dataDir ? ['-c', '@css:config/file-root.json', '-f', options.dataDir] : [];
  const proc = spawn(process.execPath, [serverJs, ...config, '-p', String(port), '-b', url, '-l', 'warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await waitFor(
    `the Solid server on port ${port}`,
    async () => {
      if (proc.exitCode !== null) throw new Error(`the Solid server exited (${proc.exitCode}): ${stderr}`);
      try {
        return (await fetch(url, { method: 'HEAD' })).ok;
      } catch {
        return false;
      }
    },
    90_000,
    200,
  );
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return { port, url, proc, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
