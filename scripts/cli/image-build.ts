// `agentbox image build [--manifest FILE] [--load] [--out FILE] [--json]`: the test image of a
// manifest, built offline from this machine's files with the Nix image's layout, name and tag.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { formatDiagnostic } from '../../management-api/src/manifest/diagnostics.js';
import { reportCommandError, UsageError, UserError } from './cli-errors.js';
import { NixEvalError, NixNotFoundError } from './nix-eval.js';
import { ruleContextFrom, targetArchHelp } from './rule-context.js';
import { buildImage, defaultCacheDir, InvalidManifestError, type BuiltImage } from './image/build-image.js';

export const usage = `Usage: agentbox image build [--manifest FILE] [--load] [--out FILE] [--json]

Build the test image of a manifest from this machine's files (Node, Debian's supervisor, tini,
bash, coreutils, bubblewrap, the CA bundle and the agents' default toolchain: git, curl, grep,
sed, findutils, Python 3), the npm agent CLIs of [agents] npm (installed from the npm registry
now, cached; from agents.lock.json beside the manifest when present) and the project's build
output, laid out as the Nix image
(schema/box-facts.json "image"), with the same OCI config and tagged exactly as the generated
docker-compose.yml names it — so that file runs unchanged. Nothing is pulled; only [agents] npm reaches the npm registry.

The production image comes from Nix: nix build .#image && docker load < result.
This one is for machines without nixpkgs (tests, CI, a first look).

Options:
  --manifest FILE   the manifest (default ./agentbox.toml)
  --load            load it into the Docker engine at DOCKER_HOST (docker load)
  --out FILE        write the docker-save archive there (default without --load: <name>-<tag>.tar)
  --json            print one JSON object (reference, image id, layers) instead of progress
${targetArchHelp}
  -h, --help        show this help

Layers are cached by content in $AGENTBOX_IMAGE_CACHE (default ${defaultCacheDir().replace(/^\/root\//, '~/')}):
a re-run with unchanged inputs writes nothing and skips a load the engine already has.
Run \`npm run build\` first: the image carries dist/. The docker client is /usr/bin/docker
(AGENTBOX_DOCKER names another).
Exit codes: 0 built, 1 invalid manifest / build or load failed, 2 unreadable file / bad usage.`;

/** Run the command (errors recognised by name: this module is loaded from the compiled tree). */
export async function run(args: string[]): Promise<number> {
  try {
    return await build(args);
  } catch (err) {
    const code = reportCommandError('image build', usage, err, args);
    if (code === undefined) throw err;
    return code;
  }
}

async function build(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { manifest: { type: 'string' }, load: { type: 'boolean' }, out: { type: 'string' }, json: { type: 'boolean' }, 'target-arch': { type: 'string' } },
  });
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}" (name the manifest with --manifest)`);
  const manifestFile = values.manifest ?? 'agentbox.toml';
  const started = Date.now();
  const progress = values.json ? () => {} : (msg: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
  let result: BuiltImage;
  try {
    result = await buildImage({
      manifestFile,
      context: ruleContextFrom(values['target-arch']),
      load: values.load ?? false,
      // Without --load the archive is the point: by default it lands here, named after the image.
      ...(values.out !== undefined ? { archive: path.resolve(values.out) } : values.load ? {} : { archiveDir: process.cwd() }),
      progress,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e instanceof InvalidManifestError) {
      for (const d of e.validation.diagnostics) process.stderr.write(`${formatDiagnostic(manifestFile, d)}\n`);
      throw new UserError(`${manifestFile}: invalid, no image built`, 1);
    }
    if (e.code === 'ENOENT' && e.path === manifestFile) throw new UserError(`cannot read the manifest ${manifestFile}: no such file`, 2);
    if (err instanceof NixNotFoundError) throw new UserError(err.message, 2);
    if (err instanceof NixEvalError || ['DockerError', 'HostContentError', 'AgentNpmError'].includes(e.name)) throw new UserError(e.message, 1);
    throw err;
  }
  const seconds = (Date.now() - started) / 1000;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...result, seconds }, null, 2)}\n`);
    return 0;
  }
  const where = result.loaded === 'loaded' ? 'loaded into the engine' : result.loaded === 'present' ? 'already in the engine' : `written to ${result.archive}`;
  process.stdout.write(`${result.reference} (${result.id.slice(0, 19)}) ${where} in ${seconds.toFixed(1)} s\n`);
  return 0;
}
