// Stage A's validated manifest, read by stage B and the egress proxy: used only while it holds for the file as it is now and
// for this machine, else the file is checked again; stage A keeps it 0600, and drops it when the file changed under it.
import t, { type Test } from 'tap';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBoxManifest, loadValidatedBoxManifest } from '../../../management-api/src/manifest/load-box-manifest.js';
import { keepValidatedManifest, readValidatedManifest } from '../../../management-api/src/manifest/validated-manifest.js';
import { hostArch } from '../../../management-api/src/manifest/host-arch.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';
import { runStageA } from '../../../management-api/src/boot/stage-a.js';
import type { BootEvents } from '../../../management-api/src/boot/boot-events.js';
import { pino } from 'pino';

const reference = fileURLToPath(new URL('../../../agentbox.toml', import.meta.url));

/** A root with the reference manifest in its runtime layout and its run directory made. */
async function boxRoot(t: Test): Promise<{ env: Record<string, string>; paths: ReturnType<typeof runtimePaths> }> {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-validated-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const env = { AGENTBOX_ROOT: root };
  const paths = runtimePaths(env);
  await mkdir(path.dirname(paths.manifestFile), { recursive: true });
  await mkdir(paths.runDir, { recursive: true });
  copyFileSync(reference, paths.manifestFile);
  return { env, paths };
}

t.test('without a kept result the file is checked, as loadBoxManifest does', async (t) => {
  const { env } = await boxRoot(t);
  t.same(await loadValidatedBoxManifest(env), await loadBoxManifest(env));
});

t.test('a kept result for the file as it is is used as it is; any change to the file makes it unused', async (t) => {
  const { env, paths } = await boxRoot(t);
  const checked = await loadBoxManifest(env);
  const text = readFileSync(paths.manifestFile, 'utf8');
  await keepValidatedManifest(paths.validatedManifestFile, text, hostArch(), checked);
  t.equal(statSync(paths.validatedManifestFile).mode & 0o777, 0o600, 'kept 0600');
  t.same(await loadValidatedBoxManifest(env), checked, 'the same manifest, hash and warnings');
  // Marked, so that what is read shows where it came from.
  const kept = JSON.parse(readFileSync(paths.validatedManifestFile, 'utf8')) as { manifest: { api: { port: number } } };
  kept.manifest.api.port = 4242;
  writeFileSync(paths.validatedManifestFile, JSON.stringify(kept));
  const used = await loadValidatedBoxManifest(env);
  t.equal(used.manifest.api.port, 4242, 'the kept result is what is read');
  t.ok(Object.isFrozen(used.manifest.api), 'and it is frozen like a checked one');
  writeFileSync(paths.manifestFile, `${text}\n# a comment changes the text\n`);
  t.equal((await loadValidatedBoxManifest(env)).manifest.api.port, checked.manifest.api.port, 'the file changed: checked again');
});

t.test('a kept result that is unreadable, of another layout or for another machine is not used', async (t) => {
  const { env, paths } = await boxRoot(t);
  const checked = await loadBoxManifest(env);
  const text = readFileSync(paths.manifestFile, 'utf8');
  for (const [what, write] of [
    ['not JSON', () => writeFileSync(paths.validatedManifestFile, '{"format": 1,')],
    [
      'another layout',
      async () => {
        await keepValidatedManifest(paths.validatedManifestFile, text, hostArch(), checked);
        const kept = JSON.parse(readFileSync(paths.validatedManifestFile, 'utf8')) as Record<string, unknown>;
        writeFileSync(paths.validatedManifestFile, JSON.stringify({ ...kept, format: 2 }));
      },
    ],
    ['another machine', () => keepValidatedManifest(paths.validatedManifestFile, text, hostArch() === 'x86_64' ? 'aarch64' : 'x86_64', checked)],
    [
      'no manifest in it',
      async () => {
        await keepValidatedManifest(paths.validatedManifestFile, text, hostArch(), checked);
        const kept = JSON.parse(readFileSync(paths.validatedManifestFile, 'utf8')) as Record<string, unknown>;
        writeFileSync(paths.validatedManifestFile, JSON.stringify({ ...kept, manifest: null }));
      },
    ],
  ] as const) {
    await write();
    t.equal(await readValidatedManifest(paths.validatedManifestFile, paths.manifestFile, hostArch()), undefined, `${what}: not used`);
    t.same(await loadValidatedBoxManifest(env), checked, `${what}: the file is checked instead`);
  }
});

t.test('stage A keeps the result of its check for the programmes after it', async (t) => {
  const { env, paths } = await boxRoot(t);
  const quiet: BootEvents = { logger: pino({ level: 'silent' }), emit: () => undefined, fail: () => undefined };
  // Stage A stops later here (no artifact list): the manifest is checked and kept before that.
  await runStageA({ env: { ...env, AGENTBOX_LOCAL: '1' }, events: quiet });
  t.ok(existsSync(paths.validatedManifestFile), 'kept');
  t.equal(statSync(paths.validatedManifestFile).mode & 0o777, 0o600);
  t.same(
    await readValidatedManifest(paths.validatedManifestFile, paths.manifestFile, hostArch()),
    await loadBoxManifest(env),
    'what it kept is what checking the file gives',
  );
});
