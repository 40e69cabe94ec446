// The golden files under tests/golden/<fixture>/ are what `agentbox render` makes of the fixture
// manifests today (regenerate-and-diff), carry a "do not edit" header where the format has
// comments, and every generated compose file passes the real `docker-compose config -q`.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { goldenDir, goldenFixtures, GOLDEN_CONTEXT, referenceIsCurrent, renderGolden, staleGoldens } from '../../scripts/cli/render-golden.js';
import { changedFiles, renderManifest, RENDERED_FILES } from '../../scripts/cli/render-box.js';
import { repoRoot } from '../helpers/cli.js';

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
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('metrics_port = 9091', 'metrics_port = 9191'));
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
    for (const json of ['image-config.json', 'artifacts.json']) t.doesNotThrow(() => JSON.parse(readFileSync(path.join(goldenDir(), name, json), 'utf8')), `${name}/${json} is JSON`);
  }
});

t.test('every generated compose file passes docker-compose config -q', async (t) => {
  for (const name of await goldenFixtures()) {
    const file = path.join(goldenDir(), name, 'docker-compose.yml');
    const r = spawnSync('docker-compose', ['-f', file, 'config', '-q'], { encoding: 'utf8' });
    t.equal(r.status, 0, `${name}: ${r.stderr}`);
    // And what docker-compose resolves keeps the hardened baseline.
    const resolved = spawnSync('docker-compose', ['-f', file, 'config'], { encoding: 'utf8' }).stdout;
    t.match(resolved, /read_only: true/, `${name}: read_only`);
    t.match(resolved, /cap_drop:\n\s+- ALL/, `${name}: cap_drop ALL`);
    t.match(resolved, /user: 1000:1000/, `${name}: user`);
  }
  t.ok(RENDERED_FILES.includes('docker-compose.yml'));
});

t.test('docker-compose rejects a broken file (the check can fail)', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-compose-'));
  const file = path.join(dir, 'docker-compose.yml');
  writeFileSync(file, (await renderGolden('empty')).files['docker-compose.yml'].replace('read_only: true', 'read_only: "sometimes"'));
  const r = spawnSync('docker-compose', ['-f', file, 'config', '-q'], { encoding: 'utf8' });
  t.not(r.status, 0, 'invalid compose is refused');
});

t.test('the golden script checks (exit 0) and names what to run when stale', async (t) => {
  const script = path.join(repoRoot, 'dist/scripts/cli/render-golden.js');
  const r = spawnSync(process.execPath, [script], { cwd: repoRoot, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /golden files are up to date/);
});
