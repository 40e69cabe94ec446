// A real box whose egress goes through the proxy programme of its own root: the set-up of the policy and approvals tests.
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { ensureApiKey } from '../../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../../management-api/src/observability/logger.js';
import { startProxyProgramme } from './egress-proxy-programme.js';
import { makeRoot, startTestServer, waitFor, type TestServer } from './harness.js';

export interface BoxWithProxy {
  box: TestServer;
  /** Where agents of the box reach the proxy. */
  proxyPort: number;
  rootDir: string;
  /** Ends the box, then its proxy. */
  close(): Promise<void>;
}

/**
 * A box started from `toml` beside its egress proxy programme (the manifest written where both read
 * it, the API key the proxy checks made first), once the API's control channel to the proxy is up.
 * `env` is the API's environment on top of the harness's (a provider's key, for instance).
 */
export async function startBoxWithProxy(toml: string, env: Record<string, string> = {}): Promise<BoxWithProxy> {
  const root = await makeRoot();
  const manifestFile = path.join(root.dir, 'agentbox.toml');
  writeFileSync(manifestFile, toml);
  await ensureApiKey(root.paths.apiKeyFile, createLogger({ level: 'silent' }));
  const proxy = await startProxyProgramme(root.dir, manifestFile);
  let box: TestServer;
  try {
    box = await startTestServer({ toml, root, env, egress: { socketPath: root.paths.egressControlSocket, timing: { retryMinMs: 20, retryMaxMs: 100 } } });
  } catch (error) {
    proxy.proc.kill();
    throw error;
  }
  await waitFor('the egress control channel', () => box.server.app.agentbox.egress!.status().reachable);
  return {
    box,
    proxyPort: proxy.port,
    rootDir: root.dir,
    close: async () => {
      await box.close();
      proxy.proc.kill();
    },
  };
}
