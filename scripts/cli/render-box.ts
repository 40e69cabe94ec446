// Renders a manifest into docker-compose.yml, supervisord.conf, image-config.json and
// artifacts.json (stage A's probe list), or the Kubernetes targets' kubernetes.yaml and
// agent-sandbox.yaml: the TypeScript loader validates it (with the target in the rule context),
// then the Nix library (lib/render.nix) generates the files. Shared by `agentbox render`, the
// golden files and the local runtime mode.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadManifestSource, type LoadResult } from '../../management-api/src/manifest/load-manifest.js';
import { canonicalJson } from '../../management-api/src/manifest/canonical-json.js';
import type { DeployTarget, RuleContext } from '../../management-api/src/manifest/rules/rule.js';
import type { ArtifactProbe } from '../../management-api/src/boot/artifact-probes.js';
import { nixEvalJson, type NixEvalOptions } from './nix-eval.js';
import { repoPath } from './repo-path.js';
import { boxFacts } from '../../management-api/src/box-facts.js';

/** The files `render` writes for the compose target, in the order it lists them. */
export const RENDERED_FILES = ['docker-compose.yml', 'supervisord.conf', 'image-config.json', 'artifacts.json'] as const;
/** A rendered file's name. */
export type RenderedFile = string;

/** The render targets and the files each writes, in the order they are listed. */
export const TARGET_FILES: Readonly<Record<DeployTarget, readonly string[]>> = {
  compose: RENDERED_FILES,
  kubernetes: ['kubernetes.yaml'],
  'agent-sandbox': ['agent-sandbox.yaml'],
};
export const RENDER_TARGETS = Object.keys(TARGET_FILES) as DeployTarget[];
/**
 * Files the compose target writes only for some manifests, after RENDERED_FILES: the seccomp
 * profile of [security.exceptions.sandbox-namespaces], which docker-compose.yml names.
 */
export const OPTIONAL_COMPOSE_FILES: readonly string[] = [boxFacts.sandboxNamespaces.profileFile];

/**
 * The kubernetes-sigs/agent-sandbox API versions agent-sandbox.yaml can use, the default first:
 * v1beta1 (the version agent-sandbox stores) and v1alpha1 (deprecated there; for older controllers).
 */
export const SANDBOX_APIS = ['v1beta1', 'v1alpha1'] as const;
export type SandboxApi = (typeof SANDBOX_APIS)[number];

/** True when `value` names an agent-sandbox API version the render knows. */
export function isSandboxApi(value: string): value is SandboxApi {
  return (SANDBOX_APIS as readonly string[]).includes(value);
}

/** What to render and where. */
export interface RenderOptions {
  /** The manifest file. */
  manifestFile: string;
  /** Directory the files go to (host paths in the compose file are made relative to it). */
  outDir: string;
  /** Runtime root for supervisord.conf: '' (the image layout) or an absolute directory. */
  root?: string;
  /** Directory of the box's own commands (default: the image's, /opt/agentbox/bin). */
  bin?: string;
  /** The workspace on the host (default: `workspace` next to the manifest). */
  workspaceDir?: string;
  /** Version for the image tag and labels (default: package.json's). */
  version?: string;
  /** Rule context for validation (its `target` is set from `targets`). */
  context: RuleContext;
  /** What to render (default compose); rules run with the first Kubernetes target, if any. */
  targets?: readonly DeployTarget[];
  /** Mesh host replicas on Postgres in kubernetes.yaml (default 2). */
  replicas?: number;
  /** The agent-sandbox API version of agent-sandbox.yaml (default v1beta1). */
  sandboxApi?: SandboxApi;
  nix?: NixEvalOptions;
}

/** What lib/render.nix returns. */
export interface NixRender {
  /** File name → text, for every file of the rendered targets (the compose files when compose is one). */
  files: Record<(typeof RENDERED_FILES)[number], string> & Record<RenderedFile, string>;
  /** The Kubernetes objects as data, by target (none for compose). */
  objects: Partial<Record<DeployTarget, Array<Record<string, unknown>>>>;
  manifest: unknown;
  manifestSha256: string;
  readiness: string[];
  /** Stage A's artifact probes (the shape of management-api/src/boot/artifact-probes.ts). */
  artifacts: ArtifactProbe[];
  image: { name: string; tag: string };
}

/** The outcome: the validation result, and when valid, the rendered files. */
export interface RenderResult {
  validation: LoadResult;
  rendered?: NixRender;
}

/** Raised when the two normalizations of one manifest disagree (a bug, or a value Nix cannot print). */
export class NormalizationMismatchError extends Error {
  override name = 'NormalizationMismatchError';
}

/** The package version from package.json. */
export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(repoPath('package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * `target` as the compose file in `fromDir` should name it: relative (./x or ../x) when the two
 * share a directory below /, so a rendered directory can move with its manifest; else absolute.
 */
export function composeRelative(fromDir: string, target: string): string {
  const from = path.resolve(fromDir);
  const to = path.resolve(target);
  const rel = path.relative(from, to).split(path.sep).join('/');
  const ups = rel.split('/').filter((s) => s === '..').length;
  if (path.isAbsolute(rel) || ups >= from.split(path.sep).filter(Boolean).length) return to;
  if (rel === '') return '.';
  return rel.startsWith('../') ? rel : `./${rel}`;
}

/** JSON pointer of the first place where `a` and `b` differ, or undefined when equal. */
export function firstDifference(a: unknown, b: unknown, pointer = ''): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return pointer || '/';
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const k of keys) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${pointer}/${k}`);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** Validate then render `options.manifestFile`; files are returned, not written. */
export async function renderManifest(options: RenderOptions, source?: string): Promise<RenderResult> {
  const text = source ?? (await readFile(options.manifestFile, 'utf8'));
  const targets = options.targets ?? ['compose'];
  const target = targets.find((t) => t !== 'compose') ?? 'compose';
  const validation = await loadManifestSource(text, { ...options.context, target });
  if (validation.exitCode !== 0 || !validation.manifest) return { validation };
  const root = options.root ?? '';
  const manifestDir = path.dirname(path.resolve(options.manifestFile));
  const argstr: Record<string, string> = {
    manifestText: text,
    source: path.basename(options.manifestFile),
    root,
    version: options.version ?? (await packageVersion()),
    manifestHostPath: composeRelative(options.outDir, options.manifestFile),
    workspaceHostPath: composeRelative(options.outDir, options.workspaceDir ?? path.join(manifestDir, 'workspace')),
  };
  if (options.bin !== undefined) argstr['bin'] = options.bin;
  argstr['target'] = targets.join(',');
  if (options.replicas !== undefined) argstr['replicas'] = String(options.replicas);
  if (options.sandboxApi !== undefined) argstr['sandboxApi'] = options.sandboxApi;
  const rendered = await nixEvalJson<NixRender>({ file: repoPath('lib/render.nix'), argstr }, options.nix);
  if (rendered.manifestSha256 !== validation.sha256) {
    const at = firstDifference(JSON.parse(canonicalJson(validation.manifest)), rendered.manifest) ?? '(key order or number format)';
    throw new NormalizationMismatchError(
      `the Nix and TypeScript normalizations of ${options.manifestFile} differ at ${at} (sha256 ${rendered.manifestSha256} vs ${validation.sha256})`,
    );
  }
  return { validation, rendered };
}

/** The names of `files`, in the order of TARGET_FILES (the optional compose files after the compose target's). */
export function fileNames(files: Record<RenderedFile, string>): RenderedFile[] {
  const order = [...TARGET_FILES.compose, ...OPTIONAL_COMPOSE_FILES, ...TARGET_FILES.kubernetes, ...TARGET_FILES['agent-sandbox']];
  return Object.keys(files).sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/** Names of the files in `dir` whose content differs from `files` (missing counts as different). */
export async function changedFiles(dir: string, files: Record<RenderedFile, string>): Promise<RenderedFile[]> {
  const changed: RenderedFile[] = [];
  for (const name of fileNames(files)) {
    const current = await readFile(path.join(dir, name), 'utf8').catch(() => undefined);
    if (current !== files[name]) changed.push(name);
  }
  return changed;
}

/** Write the rendered files into `dir` (created if needed); returns their paths. */
export async function writeRendered(dir: string, files: Record<RenderedFile, string>): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const name of fileNames(files)) {
    const file = path.join(dir, name);
    await writeFile(file, files[name] ?? '');
    written.push(file);
  }
  return written;
}
