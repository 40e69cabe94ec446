// The golden files under tests/golden/<fixture>/ are what `agentbox render` makes of the fixture
// manifests today (regenerate-and-diff), carry a "do not edit" header where the format has
// comments, and every generated compose file passes the real `docker-compose config -q`.
import t from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync as makeTemp, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  goldenDir,
  goldenFixtures,
  GOLDEN_CONTEXT,
  main,
  referenceIsCurrent,
  renderGolden,
  staleGoldens,
  updateGoldens,
} from '../../scripts/cli/render-golden.js';
import { changedFiles, OPTIONAL_COMPOSE_FILES, renderManifest, TARGET_FILES } from '../../scripts/cli/render-box.js';
import { repoRoot } from '../helpers/cli.js';

/** A temp directory removed when the file's tests end. */
function mkdtempSync(prefix: string): string {
  const dir = makeTemp(prefix);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Run a command (in `cwd`, default this process's); resolves to its exit code and output (never rejects). */
function run(cmd: string, args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: 'utf8', ...(cwd ? { cwd } : {}) }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
}

t.test('the fixtures are the four scenarios and reference.toml is the repository agentbox.toml', async (t) => {
  const names = await goldenFixtures();
  for (const n of ['empty', 'reference', 'all-features', 'federated']) t.ok(names.includes(n), `${n}.toml`);
  t.ok(await referenceIsCurrent(), 'tests/fixtures/manifests/reference.toml equals agentbox.toml (refresh: render-golden.js --update)');
});

t.test('every golden file equals a fresh render', async (t) => {
  const stale = await staleGoldens();
  t.same(stale, [], 'nothing stale; after an intended change run `node dist/scripts/cli/render-golden.js --update` and review the diff');
});

t.test('the check notices a change: a modified manifest renders differently from its golden files', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-golden-'));
  const manifest = path.join(dir, 'reference.toml');
  copyFileSync(path.join(repoRoot, 'tests/fixtures/manifests/reference.toml'), manifest);
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('# metrics_port = 9091', 'metrics_port = 9191'));
  const { rendered } = await renderManifest({ manifestFile: manifest, outDir: path.join(goldenDir(), 'reference'), version: '0.0.0', context: GOLDEN_CONTEXT });
  t.ok(rendered);
  const changed = await changedFiles(path.join(goldenDir(), 'reference'), rendered!.files);
  t.ok(changed.includes('docker-compose.yml') && changed.includes('image-config.json'), `changed: ${changed.join(', ')}`);
});

t.test('golden files say they are generated, where the format has comments', async (t) => {
  for (const name of await goldenFixtures()) {
    const compose = readFileSync(path.join(goldenDir(), name, 'docker-compose.yml'), 'utf8');
    const conf = readFileSync(path.join(goldenDir(), name, 'supervisord.conf'), 'utf8');
    t.match(compose.split('\n')[0], new RegExp(`^# generated from ${name}\\.toml by \`agentbox render\` - do not edit$`), `${name}/docker-compose.yml`);
    t.match(conf.split('\n')[0], new RegExp(`^; generated from ${name}\\.toml by \`agentbox render\` - do not edit$`), `${name}/supervisord.conf`);
    for (const target of ['kubernetes', 'agent-sandbox']) {
      const yaml = readFileSync(path.join(goldenDir(), name, `${target}.yaml`), 'utf8');
      t.match(
        yaml.split('\n')[0],
        new RegExp(`^# generated from ${name}\\.toml by \`agentbox render --target ${target}\` - do not edit$`),
        `${name}/${target}.yaml`,
      );
    }
    for (const json of ['image-config.json', 'artifacts.json'])
      t.doesNotThrow(() => JSON.parse(readFileSync(path.join(goldenDir(), name, json), 'utf8')), `${name}/${json} is JSON`);
  }
});

t.test('every generated compose file passes docker-compose config -q', async (t) => {
  const names = await goldenFixtures();
  // docker-compose (Python) starts slowly: the files are checked side by side.
  const results = await Promise.all(
    names.map(async (name) => {
      // In the rendered directory, as the header says: a seccomp profile path is relative to it.
      const dir = path.join(goldenDir(), name);
      const [quiet, resolved] = await Promise.all([
        run('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], dir),
        run('docker-compose', ['-f', 'docker-compose.yml', 'config'], dir),
      ]);
      return { name, quiet, resolved };
    }),
  );
  for (const { name, quiet, resolved } of results) {
    t.equal(quiet.code, 0, `${name}: docker-compose config -q`, { stderr: quiet.stderr });
    // And what docker-compose resolves keeps the hardened baseline.
    t.match(resolved.stdout, /read_only: true/, `${name}: read_only`);
    t.match(resolved.stdout, /cap_drop:\n\s+- ALL/, `${name}: cap_drop ALL`);
    t.match(resolved.stdout, /user: 1000:1000/, `${name}: user`);
    t.match(resolved.stdout, /no-new-privileges:true/, `${name}: no-new-privileges`);
  }
});

t.test('docker-compose rejects a broken file (the check can fail)', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-compose-'));
  const file = path.join(dir, 'docker-compose.yml');
  writeFileSync(file, (await renderGolden('empty')).files['docker-compose.yml'].replace('read_only: true', 'read_only: "sometimes"'));
  const r = spawnSync('docker-compose', ['-f', file, 'config', '-q'], { encoding: 'utf8' });
  t.not(r.status, 0, 'invalid compose is refused');
});

t.test('the golden script checks (exit 0) and, with --update, writes exactly the checked-in files', async (t) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([], { out: { write: (s: string) => out.push(s) }, err: { write: (s: string) => err.push(s) } });
  t.equal(code, 0, 'up to date', { err });
  t.match(out.join(''), /golden files are up to date/);
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-golden-update-'));
  const written = await updateGoldens(dir, false);
  const optional = (await goldenFixtures()).filter((name) => existsSync(path.join(goldenDir(), name, OPTIONAL_COMPOSE_FILES[0]!))).length;
  t.ok(optional >= 1, 'a fixture renders the optional seccomp profile');
  t.equal(written.length, (await goldenFixtures()).length * Object.values(TARGET_FILES).flat().length + optional);
  for (const file of written)
    t.equal(readFileSync(file, 'utf8'), readFileSync(path.join(goldenDir(), path.relative(dir, file)), 'utf8'), path.relative(dir, file));
  const script = spawnSync(process.execPath, [path.join(repoRoot, 'dist/scripts/cli/render-golden.js')], { cwd: repoRoot, encoding: 'utf8' });
  t.equal(script.status, 0, 'the compiled script agrees', { stderr: script.stderr });
});
