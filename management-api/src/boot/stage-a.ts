// Stage A of boot (run by the entrypoint before it execs supervisord): refuse a writable image
// root in strict mode, create the writable roots, create or reuse the secrets, probe artifacts.
// Every phase is one JSON event line; a failure is BootstrapFailed and a non-zero exit.
import { mkdir, mkdtemp, readFile, rm, access } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { manifestFileFrom, runtimePaths, type RuntimePaths } from '../runtime-paths.js';
import { loadBoxManifest } from '../manifest/load-box-manifest.js';
import { keepValidatedManifest } from '../manifest/validated-manifest.js';
import { hostArch } from '../manifest/host-arch.js';
import { ensureApiKey } from '../auth/api-key-file.js';
import { bootEvents, type BootEvents } from './boot-events.js';
import { ensureIdentityKey } from './identity-key.js';
import { startFailuresDir } from '../programme/start-failure.js';
import { runArtifactProbes, type ArtifactProbe } from './artifact-probes.js';

/** Inputs of stage A, all from the environment the entrypoint was started with. */
export interface StageAOptions {
  env: Readonly<Record<string, string | undefined>>;
  events?: BootEvents;
}

/** Raised to stop stage A; `event` names what went wrong. */
class StageAFailure extends Error {
  constructor(
    readonly event: string,
    readonly fields: Record<string, unknown>,
    message: string,
  ) {
    super(message);
  }
}

/** Run stage A; resolves to the process exit code (0: exec supervisord next). */
export async function runStageA(options: StageAOptions): Promise<number> {
  const { env } = options;
  const events = options.events ?? bootEvents('A');
  const started = performance.now();
  const paths = runtimePaths(env);
  events.emit('StageAStarted', { root: paths.root });
  try {
    const manifestFile = manifestFileFrom(env);
    const sourceText = await readFile(manifestFile, 'utf8').catch(() => undefined);
    const validated = await loadBoxManifest(env, manifestFile).catch((err: Error) => {
      throw new StageAFailure('ManifestInvalid', { manifest: manifestFile }, err.message);
    });
    const { manifest, sha256 } = validated;
    events.emit('ManifestLoaded', { manifest: manifestFile, manifest_sha256: sha256 });
    await checkImmutableRoot(env, manifest.security.strict_immutable, events);
    await createWritableRoots(paths);
    // Kept for stage B and the egress proxy, when the text checked is the text the file still holds.
    if (sourceText !== undefined && (await readFile(manifestFile, 'utf8').catch(() => undefined)) === sourceText)
      keepValidatedManifest(paths.validatedManifestFile, sourceText, hostArch(), validated);
    else await rm(paths.validatedManifestFile, { force: true });
    events.emit('WritableRootsReady', { run: paths.runDir, state: paths.stateDir, workspace: paths.workspaceDir, log: paths.logDir });
    // The seal and its failure marker are per boot: a leftover must never make this boot look ready.
    await rm(paths.sealFile, { force: true });
    await rm(paths.bootstrapFailedFile, { force: true });
    await rm(startFailuresDir(paths.runDir), { recursive: true, force: true });
    const apiKey = await ensureApiKey(paths.apiKeyFile, events.logger).catch((err: Error) => {
      throw new StageAFailure('SecretUnusable', { file: paths.apiKeyFile }, err.message);
    });
    const identity = await ensureIdentityKey(paths.identityKeyFile, events.logger).catch((err: Error) => {
      throw new StageAFailure('SecretUnusable', { file: paths.identityKeyFile }, err.message);
    });
    events.emit('SecretsReady', {
      api_key_file: paths.apiKeyFile,
      api_key_created: apiKey.created,
      identity_pubkey: identity.pubkey,
      identity_created: identity.created,
    });
    await probeArtifacts(env, events);
    events.emit('StageACompleted', { elapsed_ms: Math.round(performance.now() - started) });
    return 0;
  } catch (err) {
    if (err instanceof StageAFailure) {
      events.fail(err.event, err.fields, err.message);
      events.fail('BootstrapFailed', { stage: 'A', cause: err.event }, err.message);
      return 1;
    }
    events.fail('BootstrapFailed', { stage: 'A', cause: 'internal', error: (err as Error).message });
    return 1;
  }
}

/**
 * The image root must be read-only. `AGENTBOX_IMAGE_ROOT` names it (default `/`); the local
 * embedded mode, which runs from a checkout on a host, sets `AGENTBOX_LOCAL=1` to skip the check.
 */
async function checkImmutableRoot(env: StageAOptions['env'], strict: boolean, events: BootEvents): Promise<void> {
  if (env['AGENTBOX_LOCAL'] === '1') {
    events.emit('ImmutableRootCheckSkipped', { reason: 'local embedded mode runs on a host, not from an image' });
    return;
  }
  const imageRoot = env['AGENTBOX_IMAGE_ROOT'] ?? '/';
  const probe = await mkdtemp(path.join(imageRoot, '.agentbox-write-probe-')).catch(() => undefined);
  if (probe === undefined) {
    events.emit('ImmutableRootVerified', { image_root: imageRoot });
    return;
  }
  await rm(probe, { recursive: true, force: true });
  if (strict)
    throw new StageAFailure(
      'ImmutableRootWritable',
      { image_root: imageRoot },
      `the image root ${imageRoot} is writable; run the container with read_only: true, or set security.strict_immutable = false`,
    );
  events.fail(
    'ImmutableRootWritable',
    { image_root: imageRoot, strict: false },
    'the image root is writable (allowed because security.strict_immutable = false)',
  );
}

async function createWritableRoots(paths: RuntimePaths): Promise<void> {
  for (const dir of [paths.runDir, paths.stateDir, paths.workspaceDir, paths.logDir]) {
    try {
      await mkdir(dir, { recursive: true });
      await access(dir, constants.W_OK);
    } catch (err) {
      throw new StageAFailure(
        'WritableRootMissing',
        { path: dir },
        `${dir} is not writable (${(err as Error).message}); mount a writable volume or tmpfs there`,
      );
    }
  }
  await mkdir(paths.secretsDir, { recursive: true, mode: 0o700 });
}

/** Probes come from `AGENTBOX_ARTIFACTS` (a JSON list rendered from the manifest with the configs). */
async function probeArtifacts(env: StageAOptions['env'], events: BootEvents): Promise<void> {
  const file = env['AGENTBOX_ARTIFACTS'];
  if (!file)
    throw new StageAFailure('ArtifactListMissing', {}, 'AGENTBOX_ARTIFACTS is not set; the entrypoint needs the artifact list rendered with the configs');
  let probes: ArtifactProbe[];
  try {
    probes = JSON.parse(await readFile(file, 'utf8')) as ArtifactProbe[];
  } catch (err) {
    throw new StageAFailure('ArtifactListMissing', { file }, `cannot read the artifact list ${file}: ${(err as Error).message}`);
  }
  const failures = await runArtifactProbes(probes, env['PATH']);
  for (const f of failures) {
    const fields = { capability: f.capability, path: f.path, probe: f.probe, required: f.required, reason: f.reason };
    if (f.required) events.fail('MissingArtifactDetected', fields, f.reason);
    else events.emit('OptionalArtifactMissing', fields, f.reason);
  }
  const fatal = failures.filter((f) => f.required);
  if (fatal.length)
    throw new StageAFailure(
      'ArtifactsMissing',
      { missing: fatal.map((f) => f.capability) },
      `${fatal.length} required artifact(s) missing: ${fatal.map((f) => `${f.capability} (${f.path})`).join(', ')}`,
    );
  events.emit('ArtifactProbesPassed', { probes: probes.length });
}
