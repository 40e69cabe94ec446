// Adversarial agents in a box started with `agentbox up --local` and the local orchestrator: every attempt refused, the box ready throughout, an allowed host and the provider broker working.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freePort } from '../runtime-contract/support/box-runner.js';
import { repoRoot } from '../helpers/cli.js';
import { closedPort, startStandInProvider } from '../helpers/stand-in-provider.js';
import { PROVIDER } from '../helpers/adversarial-expectations.js';
import { adversarialManifest, runAdversarialSuite, type AdversarialBox } from '../helpers/adversarial-suite.js';
import { apiKeyOf, startLocalBox } from './support/local-box.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';

// `auto` runs whichever layer the host allows (bubblewrap here when user namespaces work); `off` is Landlock, seccomp and rlimits alone, as in the container.
for (const namespaces of ['auto', 'off'] as const)
  t.test(`adversarial agents against an up --local box (sandbox.namespaces = "${namespaces}")`, { timeout: 240_000 }, async (t) => {
    const work = mkdtempSync(path.join(tmpdir(), 'agentbox-adversarial-'));
    t.teardown(() => rmSync(work, { recursive: true, force: true }));
    // Searchable (not listable) by others: as root, the box runs agents as uid 65534, which must reach their directories.
    chmodSync(work, 0o711);
    // One stand-in on 127.0.0.1: the allowed host for the proxy and the provider behind the broker.
    const standIn = await startStandInProvider();
    t.teardown(() => standIn.close());
    const [apiPort, metricsPort, egressPort] = [await freePort(), await freePort(), await freePort()];
    const manifestFile = path.join(work, 'agentbox.toml');
    writeFileSync(
      manifestFile,
      `[api]\nport = ${apiPort}\n\n[observability]\nmetrics_port = ${metricsPort}\n\n` +
        `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\ncritical = []\n\n` +
        adversarialManifest({ namespaces, egressPort, allowedPort: standIn.port, providerPort: standIn.port }),
    );
    const root = path.join(work, 'box');
    mkdirSync(root);
    const local = startLocalBox({ manifestFile, root, apiPort, logFile: path.join(work, 'up.log'), env: { [PROVIDER.envVar]: PROVIDER.key } });
    t.teardown(() => local.stop());
    await local.ready();
    const key = apiKeyOf(root);
    const paths = runtimePaths({ AGENTBOX_ROOT: root });
    // A file that appears in the checkout once the box runs, as another box's root or a core file would.
    const laterDir = mkdtempSync(path.join(repoRoot, '.adversarial-later-'));
    t.teardown(() => rmSync(laterDir, { recursive: true, force: true }));
    const laterFile = path.join(laterDir, 'secret.txt');
    writeFileSync(laterFile, 'appeared after the box started');
    chmodSync(laterDir, 0o755);

    const box: AdversarialBox = {
      apiUrl: local.apiUrl,
      async call(method, url, body) {
        const res = await fetch(local.apiUrl + url, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      },
      async writeFile(file, text) {
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, text);
      },
      async writeExecutable(file, data) {
        writeFileSync(file, data);
        chmodSync(file, 0o755);
      },
      readFile: async (file) => readFileSync(file, 'utf8'),
      paths: {
        workspace: paths.workspaceDir,
        apiKeyFile: paths.apiKeyFile,
        identityKeyFile: paths.identityKeyFile,
        stateDir: paths.stateDir,
        installation: repoRoot,
      },
      readOnlyRoot: false,
      // As root the box runs agents as nobody; as a user, as itself.
      agentsShareBoxUid: process.getuid?.() !== 0,
      laterFile,
      allowedPort: standIn.port,
      closedPort: await closedPort(),
    };
    await runAdversarialSuite(t, box);

    t.test('what reached the stand-in provider: the real key, never the agent token', async (t) => {
      const call = standIn.arrivals.find((a) => a.url === '/v1/messages');
      t.equal(call?.headers['x-api-key'], PROVIDER.key, 'the broker put the real key in');
      t.notOk(
        standIn.arrivals.some((a) => String(a.headers['x-api-key'] ?? a.headers['authorization'] ?? '').includes('abx_agent_')),
        'no agent token reached the provider',
      );
      t.ok(
        standIn.arrivals.some((a) => a.url === '/allowed'),
        'the allowed host was reached through the proxy',
      );
    });
  });
