// Builds the test image of a manifest from this machine's files — the same layout, config, name
// and tag as `nix build .#image` — as a `docker save` archive, and loads it into the engine at
// DOCKER_HOST. The production image comes from Nix; this one lets the generated compose file run
// where nixpkgs cannot be fetched.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { boxFacts } from '../../../management-api/src/box-facts.js';
import type { RuleContext } from '../../../management-api/src/manifest/rules/rule.js';
import type { LoadResult } from '../../../management-api/src/manifest/load-manifest.js';
import { renderManifest } from '../render-box.js';
import { repoPath } from '../repo-path.js';
import { AGENTS_LOCK_FILE, checkLock, ensureAgentNpm, type AgentNpmInstall } from './agent-npm.js';
import { agentsLayer } from './agents-layer.js';
import { dockerLoad, imageId } from './docker.js';
import { hostContents } from './host-contents.js';
import { cachedLayer, type Layer } from './layer-cache.js';
import { appLayer, configLayer, systemLayer } from './layers.js';
import { TarWriter } from './tar-writer.js';

/** What to build. */
export interface BuildImageOptions {
  manifestFile: string;
  context: RuleContext;
  /** Load into the engine at env.DOCKER_HOST (else only write the archive). */
  load: boolean;
  /** Where the archive goes (default: a temporary file, removed after loading). */
  archive?: string;
  /** Or a directory for it, named <name>-<tag>.tar after the image. */
  archiveDir?: string;
  /** Layer cache (default $AGENTBOX_IMAGE_CACHE, else ~/.cache/agentbox/image). */
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
  progress?: (msg: string) => void;
}

/** The outcome. */
export interface BuiltImage {
  /** name:tag, as the generated compose file names it. */
  reference: string;
  /** sha256:… of the image config: what the engine reports as the image id. */
  id: string;
  layers: Layer[];
  /** loaded: sent to the engine; present: the engine had it already; false: not asked to. */
  loaded: 'loaded' | 'present' | false;
  archive?: string;
}

/** The manifest is invalid: the validation result says why. */
export class InvalidManifestError extends Error {
  override name = 'InvalidManifestError';
  constructor(readonly validation: LoadResult) {
    super('the manifest is invalid');
  }
}

/** The layer cache directory. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['AGENTBOX_IMAGE_CACHE'] || path.join(env['XDG_CACHE_HOME'] || path.join(homedir(), '.cache'), 'agentbox', 'image');
}

const ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/** Render, assemble the layers (cached), write the archive and load it. */
export async function buildImage(options: BuildImageOptions): Promise<BuiltImage> {
  const env = options.env ?? process.env;
  const progress = options.progress ?? (() => {});
  const cacheDir = options.cacheDir ?? defaultCacheDir(env);
  progress(`rendering ${options.manifestFile}`);
  const scratch = path.join(tmpdir(), `agentbox-image-${process.pid}`);
  const manifestText = readFileSync(options.manifestFile, 'utf8');
  const { validation, rendered } = await renderManifest({ manifestFile: options.manifestFile, outDir: scratch, context: options.context }, manifestText);
  if (!rendered) throw new InvalidManifestError(validation);
  const imageConfig = JSON.parse(rendered.files['image-config.json']) as { name: string; tag: string; config: Record<string, unknown> };
  const reference = `${imageConfig.name}:${imageConfig.tag}`;

  progress('collecting commands and libraries from this machine');
  const host = hostContents(boxFacts.image.contents, boxFacts.image.caBundle);
  // The npm agent CLIs: installed at build time (cached), never at boot; no layer when none are listed.
  const specs = validation.manifest?.agents.npm ?? [];
  const nixOnly = validation.manifest?.agents.packages ?? [];
  if (nixOnly.length) progress(`[agents] packages (${nixOnly.join(', ')}) are nixpkgs attributes: only the Nix image carries them`);
  const agents = specs.length
    ? [cachedLayer(cacheDir, 'agents', agentsLayer(await agentNpm(options.manifestFile, specs, cacheDir, progress), new Set(host.files.keys())), progress)]
    : [];
  const layers = [
    cachedLayer(cacheDir, 'system', systemLayer(host), progress),
    ...agents,
    cachedLayer(cacheDir, 'app', appLayer(repoPath('.')), progress),
    cachedLayer(
      cacheDir,
      'config',
      configLayer({ manifest: manifestText, supervisordConf: rendered.files['supervisord.conf'], artifacts: rendered.files['artifacts.json'] }),
      progress,
    ),
  ];
  for (const l of layers) progress(`layer ${l.name}: ${(l.size / 1e6).toFixed(0)} MB${l.cached ? ' (cached)' : ''}`);

  const config = Buffer.from(
    JSON.stringify({
      architecture: ARCH[process.arch] ?? process.arch,
      os: 'linux',
      created: '1970-01-01T00:00:01Z',
      config: imageConfig.config,
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
      history: layers.map((l) => ({ created: '1970-01-01T00:00:01Z', created_by: `agentbox image build: ${l.name}` })),
    }),
  );
  const id = `sha256:${createHash('sha256').update(config).digest('hex')}`;
  if (options.load && imageId(reference, env) === id) {
    progress(`${reference} is already in the engine`);
    return { reference, id, layers, loaded: 'present' };
  }

  const keep = options.archive ?? (options.archiveDir ? path.join(options.archiveDir, `${reference.replace(/[/:]/g, '-')}.tar`) : undefined);
  const archive = keep ?? path.join(tmpdir(), `agentbox-image-${process.pid}-${Date.now()}.tar`);
  progress(`writing ${archive}`);
  writeArchive(archive, reference, config, id, layers);
  if (!options.load) return { reference, id, layers, loaded: false, archive };
  try {
    progress(`loading ${reference} into the engine at ${env['DOCKER_HOST'] ?? 'the default socket'}`);
    dockerLoad(archive, env);
  } finally {
    if (!keep) rmSync(archive, { force: true });
  }
  return { reference, id, layers, loaded: 'loaded', ...(keep ? { archive } : {}) };
}

/** The CLIs of `specs`, from the lock file beside the manifest when there is one (it must match them). */
async function agentNpm(manifestFile: string, specs: readonly string[], cacheDir: string, progress: (msg: string) => void): Promise<AgentNpmInstall> {
  const lockFile = path.join(path.dirname(path.resolve(manifestFile)), AGENTS_LOCK_FILE);
  const lock = existsSync(lockFile) ? (JSON.parse(readFileSync(lockFile, 'utf8')) as object) : undefined;
  if (lock) checkLock(lock, specs, lockFile);
  const install = await ensureAgentNpm({ specs, cacheDir, ...(lock ? { lock } : {}), progress });
  progress(`agent CLIs ${Object.keys(install.bins).join(', ')}${install.installed ? '' : ' (cached)'}`);
  return install;
}

/** A `docker save` archive: manifest.json, the config, and each layer as <diffid>/layer.tar. */
function writeArchive(file: string, reference: string, config: Buffer, id: string, layers: Layer[]): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    const tar = new TarWriter(fd);
    const own = { uid: 0, gid: 0, mode: 0o644 };
    const configName = `${id.slice('sha256:'.length)}.json`;
    const layerNames = layers.map((l) => `${l.diffId.slice('sha256:'.length)}/layer.tar`);
    const manifest = Buffer.from(JSON.stringify([{ Config: configName, RepoTags: [reference], Layers: layerNames }]));
    tar.add({ type: 'file', path: configName, size: config.length, content: config, ...own });
    layers.forEach((l, i) => {
      tar.add({ type: 'dir', path: path.posix.dirname(layerNames[i]!), ...own, mode: 0o755 });
      tar.add({ type: 'file', path: layerNames[i]!, size: l.size, source: l.file, ...own });
    });
    tar.add({ type: 'file', path: 'manifest.json', size: manifest.length, content: manifest, ...own });
    tar.finish();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
