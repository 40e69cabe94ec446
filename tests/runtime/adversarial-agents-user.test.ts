// Adversarial agents against a box run by an unprivileged user on the host (uid 1000, the launcher alone): agents share the box's uid, as in the container, and every other promise must hold on its own.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startBox, waitForStatus } from '../runtime-contract/support/box-runner.js';
import { repoRoot } from '../helpers/cli.js';
import { closedPort, startStandInProvider } from '../helpers/stand-in-provider.js';
import { PROVIDER } from '../helpers/adversarial-expectations.js';
import { adversarialManifest, runAdversarialSuite, type AdversarialBox } from '../helpers/adversarial-suite.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { freePort } from '../helpers/free-port.js';

const USER = { uid: 1000, gid: 1000 };
const asRoot = process.getuid?.() === 0;

t.test(
  'adversarial agents against a box run by an unprivileged user (launcher alone)',
  { skip: !asRoot && 'drops to uid 1000 from root (CI runs as root)', timeout: 240_000 },
  async (t) => {
    const standIn = await startStandInProvider();
    t.teardown(() => standIn.close());
    const manifest =
      `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\ncritical = []\n\n` +
      adversarialManifest({ namespaces: 'off', egressPort: await freePort(), allowedPort: standIn.port, providerPort: standIn.port });
    const box = await startBox({
      manifest,
      wrapWith: ['setpriv', '--reuid', String(USER.uid), '--regid', String(USER.gid), '--clear-groups', '--'],
      env: { [PROVIDER.envVar]: PROVIDER.key, HOME: '/tmp' },
      // The box's own root is the user's, as it would be for a user who runs it.
      prepare: (hostRoot) => chownSync(hostRoot, USER.uid, USER.gid),
    });
    t.teardown(async () => {
      await box.stop();
      rmSync(path.dirname(box.hostRoot), { recursive: true, force: true });
    });
    await waitForStatus(`${box.apiUrl}/ready`, 200, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${box.lines.slice(-40).join('\n')}`);
    });
    const paths = runtimePaths({ AGENTBOX_ROOT: box.hostRoot });
    const health = (await (await fetch(`${box.apiUrl}/health`)).json()) as { programs?: { programs?: Array<{ name: string; pid: number }> } };
    const apiPid = health.programs?.programs?.find((p) => p.name === 'management-api')?.pid;
    t.match(readFileSync(`/proc/${apiPid}/status`, 'utf8'), new RegExp(`^Uid:\\s+${USER.uid}\\s`, 'm'), 'the API runs as the unprivileged user');
    const key = readFileSync(paths.apiKeyFile, 'utf8').trim();
    // A file that appears in the checkout once the box runs, as another box's root or a core file would.
    const laterDir = mkdtempSync(path.join(repoRoot, '.adversarial-later-'));
    t.teardown(() => rmSync(laterDir, { recursive: true, force: true }));
    chmodSync(laterDir, 0o755);
    const laterFile = path.join(laterDir, 'secret.txt');
    writeFileSync(laterFile, 'appeared after the box started', { mode: 0o644 });

    /** Create `file` (and its directory) as the box's user would. */
    const ownedWrite = (file: string, data: string | Buffer, mode: number) => {
      mkdirSync(path.dirname(file), { recursive: true });
      chownSync(path.dirname(file), USER.uid, USER.gid);
      writeFileSync(file, data, { mode });
      chownSync(file, USER.uid, USER.gid);
    };
    const adversarial: AdversarialBox = {
      apiUrl: box.apiUrl,
      async call(method, url, body) {
        const res = await fetch(box.apiUrl + url, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      writeFile: async (file, text) => ownedWrite(file, text, 0o644),
      writeExecutable: async (file, data) => ownedWrite(file, data, 0o755),
      readFile: async (file) => readFileSync(file, 'utf8'),
      paths: {
        workspace: paths.workspaceDir,
        apiKeyFile: paths.apiKeyFile,
        identityKeyFile: paths.identityKeyFile,
        stateDir: paths.stateDir,
        installation: repoRoot,
      },
      readOnlyRoot: false,
      agentsShareBoxUid: true,
      laterFile,
      allowedPort: standIn.port,
      closedPort: await closedPort(),
    };
    await runAdversarialSuite(t, adversarial);
  },
);
