// hostArch maps Node's architecture to the manifest's target and refuses others; loadBoxManifest reads the file the environment names, for this machine and with that environment.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostArch, UnknownHostArchError } from '../../../management-api/src/manifest/host-arch.js';
import { loadBoxManifest } from '../../../management-api/src/manifest/load-box-manifest.js';
import { ManifestInvalidError } from '../../../management-api/src/manifest/load-manifest.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';

t.test('hostArch: x64 is x86_64, arm64 is aarch64, anything else is refused by name', async (t) => {
  t.equal(hostArch('x64'), 'x86_64');
  t.equal(hostArch('arm64'), 'aarch64');
  t.equal(hostArch(), hostArch(process.arch), "the default is this machine's");
  for (const other of ['ppc64', 's390x', 'ia32', 'arm', 'constructor', '']) {
    t.throws(() => hostArch(other), UnknownHostArchError, `${other || 'an empty name'} is refused`);
  }
  t.throws(
    () => hostArch('riscv64'),
    { message: /"riscv64" \(Node's process\.arch\).*x86_64 \(Node's x64\) or aarch64 \(arm64\)/ },
    'the error names the architecture and the ones a box runs on',
  );
});

t.test('loadBoxManifest: AGENTBOX_MANIFEST, else the runtime layout under AGENTBOX_ROOT; an explicit file wins', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-box-manifest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const named = path.join(dir, 'named.toml');
  writeFileSync(named, '[api]\nport = 9191\n');
  t.equal((await loadBoxManifest({ AGENTBOX_MANIFEST: named })).manifest.api.port, 9191, 'the file AGENTBOX_MANIFEST names');
  const layout = runtimePaths({ AGENTBOX_ROOT: dir }).manifestFile;
  mkdirSync(path.dirname(layout), { recursive: true });
  writeFileSync(layout, '[api]\nport = 9292\n');
  t.equal((await loadBoxManifest({ AGENTBOX_ROOT: dir })).manifest.api.port, 9292, "the runtime layout's manifest file");
  t.equal((await loadBoxManifest({ AGENTBOX_ROOT: dir }, named)).manifest.api.port, 9191, 'an explicit file wins');
  await t.rejects(loadBoxManifest({ AGENTBOX_MANIFEST: path.join(dir, 'absent.toml') }), ManifestInvalidError, 'a missing file is an invalid manifest');
});

t.test("loadBoxManifest runs the rules with the given environment and this machine's architecture", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-box-manifest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const provider = path.join(dir, 'provider.toml');
  writeFileSync(provider, '[providers.openai]\nenv_var = "AGENTBOX_LOAD_BOX_TEST_KEY"\n');
  t.same(
    (await loadBoxManifest({ AGENTBOX_MANIFEST: provider })).warnings.map((w) => w.id),
    ['W004'],
    'the variable is unset in the given environment',
  );
  t.same((await loadBoxManifest({ AGENTBOX_MANIFEST: provider, AGENTBOX_LOAD_BOX_TEST_KEY: 'k' })).warnings, [], 'and set in it');
  // GPUs are built for x86_64 only (E013): the verdict follows the machine the box runs on.
  const gpu = path.join(dir, 'gpu.toml');
  writeFileSync(gpu, '[features]\ngpu = "cuda"\n\n[security.exceptions.gpu-cuda]\nreason = "training"\n');
  const loading = loadBoxManifest({ AGENTBOX_MANIFEST: gpu });
  if (hostArch() === 'x86_64') t.equal((await loading).manifest.features.gpu, 'cuda', 'valid on an x86_64 machine');
  else await t.rejects(loading, { message: /E013/ }, 'refused on an aarch64 machine');
});
