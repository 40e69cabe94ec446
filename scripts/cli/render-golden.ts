// The golden files: tests/golden/<fixture>/ holds every target's files (docker-compose.yml,
// supervisord.conf, image-config.json, artifacts.json, kubernetes.yaml, agent-sandbox.yaml)
// rendered from tests/fixtures/manifests/<fixture>.toml. Checks them, or rewrites them with --update:
//   node dist/scripts/cli/render-golden.js [--update]
// reference.toml is the repository's agentbox.toml; --update refreshes that copy first.
import { copyFile, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RuleContext } from '../../management-api/src/manifest/rules/rule.js';
import { formatDiagnostic } from '../../management-api/src/manifest/diagnostics.js';
import { changedFiles, RENDER_TARGETS, renderManifest, writeRendered, type NixRender, type RenderedFile } from './render-box.js';
import { repoPath } from './repo-path.js';

/** Goldens are rendered with a fixed version, so a release does not rewrite them. */
export const GOLDEN_VERSION = '0.0.0';
/** And with a fixed rule context: an x86_64 target and an empty environment (the render targets
 * are all of them, so the rules about Kubernetes forms run too). */
export const GOLDEN_CONTEXT: RuleContext = { targetArch: 'x86_64', env: {} };

export const fixturesDir = (): string => repoPath('tests/fixtures/manifests');
export const goldenDir = (): string => repoPath('tests/golden');

/** Names of the fixture manifests (file names without .toml), sorted. */
export async function goldenFixtures(): Promise<string[]> {
  return (await readdir(fixturesDir()))
    .filter((f) => f.endsWith('.toml'))
    .map((f) => f.slice(0, -'.toml'.length))
    .sort();
}

/** Render one fixture the way its golden files are made. Throws when the fixture is invalid. */
export async function renderGolden(name: string): Promise<NixRender> {
  const manifestFile = path.join(fixturesDir(), `${name}.toml`);
  const { validation, rendered } = await renderManifest({
    manifestFile,
    outDir: path.join(goldenDir(), name),
    version: GOLDEN_VERSION,
    context: GOLDEN_CONTEXT,
    targets: RENDER_TARGETS,
  });
  if (!rendered) throw new Error(`fixture ${name} is invalid:\n${validation.diagnostics.map((d) => formatDiagnostic(manifestFile, d)).join('\n')}`);
  return rendered;
}

/** Fixtures whose golden files differ from a fresh render (with the differing files). */
export async function staleGoldens(): Promise<Array<{ name: string; files: RenderedFile[] }>> {
  const stale: Array<{ name: string; files: RenderedFile[] }> = [];
  for (const name of await goldenFixtures()) {
    const files = await changedFiles(path.join(goldenDir(), name), (await renderGolden(name)).files);
    if (files.length) stale.push({ name, files });
  }
  return stale;
}

/** True when tests/fixtures/manifests/reference.toml is byte-identical to agentbox.toml. */
export async function referenceIsCurrent(): Promise<boolean> {
  const [a, b] = await Promise.all([readFile(repoPath('agentbox.toml'), 'utf8'), readFile(path.join(fixturesDir(), 'reference.toml'), 'utf8')]);
  return a === b;
}

/**
 * Rewrite every golden directory under `into` (default tests/golden); with `refreshReference`
 * (the default), first copy agentbox.toml to the reference fixture.
 */
export async function updateGoldens(into = goldenDir(), refreshReference = true): Promise<string[]> {
  if (refreshReference) await copyFile(repoPath('agentbox.toml'), path.join(fixturesDir(), 'reference.toml'));
  const written: string[] = [];
  for (const name of await goldenFixtures()) written.push(...(await writeRendered(path.join(into, name), (await renderGolden(name)).files)));
  return written;
}

/** Where main() writes. */
export interface Output {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

/** The script: check (exit 0 up to date, 1 stale) or `--update`. */
export async function main(argv: string[], io: Output = { out: process.stdout, err: process.stderr }): Promise<number> {
  if (argv.includes('--update')) {
    for (const f of await updateGoldens()) io.out.write(`wrote ${path.relative(process.cwd(), f)}\n`);
    return 0;
  }
  const stale = await staleGoldens();
  const reference = await referenceIsCurrent();
  if (!reference) io.err.write('tests/fixtures/manifests/reference.toml differs from agentbox.toml\n');
  for (const s of stale) io.err.write(`tests/golden/${s.name}: out of date: ${s.files.join(', ')}\n`);
  if (stale.length || !reference) {
    io.err.write('review the change, then run: node dist/scripts/cli/render-golden.js --update\n');
    return 1;
  }
  io.out.write('golden files are up to date\n');
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
