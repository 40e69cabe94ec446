// `agentbox image build` without an engine: the archive it writes is a `docker load` archive whose
// image is tagged exactly as the generated compose file names it, with the rendered OCI config;
// a second build reuses every layer; bad input gets the documented exit codes.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentbox } from '../../helpers/cli.js';
import { buildImage, InvalidManifestError } from '../../../scripts/cli/image/build-image.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-imagebuild-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(path.join(dir, 'agentbox.toml'), '[agentbox]\nname = "cli-image"\n');
// The default layer cache, shared with the container suite: only the config layer is new here.
const env = process.env;

t.test('--out: a docker-save archive named as the compose file names the image', async (t) => {
  const render = runAgentbox(['render', '--out', '.'], { cwd: dir });
  t.equal(render.code, 0, render.stderr);
  const composeImage = /^\s+image: "([^"]+)"$/m.exec(readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8'))?.[1];
  const r = runAgentbox(['image', 'build', '--out', 'box.tar', '--json'], { cwd: dir, env });
  t.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { reference: string; id: string; loaded: boolean; layers: Array<{ name: string; cached: boolean; diffId: string }> };
  t.equal(report.reference, composeImage, 'the reference the compose file uses');
  t.equal(report.loaded, false);
  t.same(
    report.layers.map((l) => l.name),
    ['system', 'app', 'config'],
  );
  const read = (member: string) => execFileSync('tar', ['-xOf', path.join(dir, 'box.tar'), member], { encoding: 'utf8' });
  const manifest = JSON.parse(read('manifest.json')) as Array<{ Config: string; RepoTags: string[]; Layers: string[] }>;
  t.same(manifest[0]!.RepoTags, [composeImage], 'docker load tags it so');
  const config = JSON.parse(read(manifest[0]!.Config)) as { config: unknown; rootfs: { diff_ids: string[] } };
  const rendered = JSON.parse(readFileSync(path.join(dir, 'image-config.json'), 'utf8')) as { config: unknown };
  t.same(config.config, rendered.config, 'the OCI config agentbox render writes to image-config.json');
  t.same(
    config.rootfs.diff_ids,
    report.layers.map((l) => l.diffId),
    'the layers it reports',
  );

  const again = runAgentbox(['image', 'build', '--out', 'again.tar', '--json'], { cwd: dir, env });
  t.equal(again.code, 0, again.stderr);
  const second = JSON.parse(again.stdout) as typeof report;
  t.same(
    second.layers.map((l) => l.cached),
    [true, true, true],
    'a second build reuses every layer',
  );
  t.equal(second.id, report.id, 'and gives the same image id');
  for (const f of ['box.tar', 'again.tar']) rmSync(path.join(dir, f));
});

t.test('exit codes: 1 for an invalid manifest, 2 for a missing one or bad usage', async (t) => {
  writeFileSync(path.join(dir, 'bad.toml'), '[agentbox]\nnmae = "x"\n');
  const bad = runAgentbox(['image', 'build', '--manifest', 'bad.toml'], { cwd: dir, env });
  t.equal(bad.code, 1);
  t.match(bad.stderr, /bad\.toml:2:1: error .*nmae/);
  t.match(bad.stderr, /invalid, no image built/);
  const missing = runAgentbox(['image', 'build', '--manifest', 'nope.toml'], { cwd: dir, env });
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot read the manifest nope\.toml/);
  t.equal(runAgentbox(['image', 'build', 'extra'], { cwd: dir, env }).code, 2);
  const help = runAgentbox(['image', 'build', '--help'], { cwd: dir, env });
  t.equal(help.code, 0);
  t.match(help.stdout, /nix build \.#image/, 'the help says where the production image comes from');
});

t.test('buildImage in process: the archive and its progress; an invalid manifest is an InvalidManifestError', async (t) => {
  const heard: string[] = [];
  const archive = path.join(dir, 'inproc.tar');
  const built = await buildImage({
    manifestFile: path.join(dir, 'agentbox.toml'),
    context: { targetArch: 'x86_64', env: {} },
    load: false,
    archive,
    progress: (m) => heard.push(m),
  });
  t.equal(built.archive, archive);
  t.match(built.reference, /^agentbox\/cli-image:/);
  t.match(heard.join('\n'), /rendering[\s\S]*layer system[\s\S]*writing/, 'progress on every step');
  rmSync(archive);
  writeFileSync(path.join(dir, 'bad2.toml'), '[agentbox]\nnmae = "x"\n');
  const err = await buildImage({ manifestFile: path.join(dir, 'bad2.toml'), context: { targetArch: 'x86_64', env: {} }, load: false }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof InvalidManifestError && err.validation.exitCode === 1, 'the validation result comes with it');
});
