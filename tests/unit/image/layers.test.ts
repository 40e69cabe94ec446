// The test image's layers follow the facts file's layout (what lib/image.nix builds): commands in
// /bin, the box user, the mount points and their owners, the application with production
// modules only, the configs; and the layer cache keys on content, not on modification times.
import t from 'tap';
import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { boxFacts } from '../../../management-api/src/box-facts.js';
import { hostContents } from '../../../scripts/cli/image/host-contents.js';
import { appLayer, configLayer, systemLayer } from '../../../scripts/cli/image/layers.js';
import { cachedLayer, KEEP_PER_NAME, layerKey } from '../../../scripts/cli/image/layer-cache.js';
import { execFileSync } from 'node:child_process';
import type { TarEntry } from '../../../scripts/cli/image/tar-writer.js';
import { repoRoot } from '../../helpers/cli.js';

const img = boxFacts.image;
const rel = (p: string) => p.replace(/^\//, '');
const byPath = (entries: TarEntry[]) => new Map(entries.map((e) => [e.path, e]));

t.test('system layer: every command of image.contents, the box user, the mount points', async (t) => {
  const system = byPath(systemLayer(hostContents(img.contents, img.caBundle)));
  t.match(system.get('bin'), { type: 'symlink', target: 'usr/bin' }, '/bin is /usr/bin (merged /usr)');
  for (const c of img.contents) for (const cmd of c.commands) t.ok(system.has(`usr/bin/${cmd}`), `${c.name}: /bin/${cmd}`);
  t.match(system.get('usr/bin/sh'), { type: 'symlink', target: 'bash' }, 'sh is bash, as in nixpkgs');
  t.ok(system.has(rel(img.caBundle)), 'the CA bundle where SSL_CERT_FILE points');
  t.ok(
    [...system.keys()].some((p) => /^usr\/lib\/python3\.\d+\/lib-dynload\/_asyncio\./.test(p)),
    "Python's extension modules",
  );
  t.ok(
    [...system.keys()].some((p) => /\/supervisor\/xmlrpc\.py$/.test(p)) && [...system.keys()].some((p) => /supervisor-[\d.]+\.(egg|dist)-info/.test(p)),
    'supervisor and its distribution metadata (its console scripts look it up)',
  );
  t.ok(
    [...system.keys()].some((p) => /libc\.so\.6$/.test(p)),
    'the C library of the commands',
  );
  const passwd = system.get('etc/passwd');
  t.ok(
    passwd?.type === 'file' &&
      'content' in passwd &&
      passwd.content.toString().includes(`${img.user}:x:${img.uid}:${img.gid}:Agentbox:${img.homeDir}:${img.shell}`),
    'the box user in /etc/passwd',
  );
  const nss = system.get('etc/nsswitch.conf');
  t.ok(nss?.type === 'file' && 'content' in nss && /^hosts: files dns$/m.test(nss.content.toString()), 'hosts: files dns (service-name DNS)');
  t.match(system.get(rel(boxFacts.runtime.dirs.tmpDir)), { type: 'dir', mode: 0o1777, uid: 0 });
  for (const d of [boxFacts.runtime.dirs.stateDir, boxFacts.runtime.dirs.workspaceDir])
    t.match(system.get(rel(d)), { type: 'dir', uid: img.uid, gid: img.gid }, `${d} belongs to the box user`);
  for (const d of Object.keys(boxFacts.baseline.tmpfs)) t.match(system.get(rel(d)), { type: 'dir' }, `${d}: a mount point`);
  const paths = [...system.keys()];
  t.same(paths, [...paths].sort(), 'parents before children');
});

t.test('app layer: the image.app entries, production modules only, bin -> config/bin', async (t) => {
  const app = byPath(appLayer(repoRoot));
  const under = (p: string) => `${rel(img.appDir)}/${p}`;
  for (const name of img.app) t.ok(app.has(under(name)), `${img.appDir}/${name}`);
  t.match(app.get(rel(img.binDir)), { type: 'symlink', target: 'config/bin' });
  t.ok(app.has(under(`config/bin/${img.entrypoint}`)), 'the entrypoint');
  t.ok(app.has(under('node_modules/fastify/package.json')), 'a dependency');
  t.notOk(app.has(under('node_modules/tap')), 'no devDependency (tap)');
  t.notOk(app.has(under('node_modules/fast-check')), 'no devDependency (fast-check)');
  t.ok(
    [...app.keys()].some((p) => p.startsWith(under('node_modules/better-sqlite3/build/Release/')) && p.endsWith('.node')),
    'the native module built here',
  );
});

t.test('config layer and the cache key: content counts, modification times do not', async (t) => {
  const files = { manifest: '[agentbox]\n', supervisordConf: '[supervisord]\n', artifacts: '[]' };
  const config = configLayer(files);
  t.ok(
    config.some((e) => e.path === rel(boxFacts.runtime.files.manifestFile)),
    'the manifest where the runtime reads it',
  );
  t.not(layerKey(config), layerKey(configLayer({ ...files, manifest: '[agentbox]\nname = "b"\n' })), 'another manifest, another layer');
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-layer-'));
  const f = path.join(dir, 'x');
  writeFileSync(f, 'one');
  const entry = (): TarEntry[] => [{ type: 'file', path: 'x', mode: 0o644, uid: 0, gid: 0, size: 3, source: f }];
  const before = layerKey(entry());
  utimesSync(f, new Date(1000), new Date(1000));
  t.equal(layerKey(entry()), before, 'a touched file keeps the key');
  writeFileSync(f, 'two');
  t.not(layerKey(entry()), before, 'changed bytes change it');
});

t.test('the layer cache writes a layer once, then hands back the same file and diff id', async (t) => {
  const cache = mkdtempSync(path.join(tmpdir(), 'agentbox-layer-cache-'));
  t.teardown(() => execFileSync('rm', ['-rf', cache]));
  const entries: TarEntry[] = [
    { type: 'dir', path: 'etc', mode: 0o755, uid: 0, gid: 0 },
    { type: 'file', path: 'etc/motd', mode: 0o644, uid: 0, gid: 0, size: 3, content: Buffer.from('hi\n') },
  ];
  const heard: string[] = [];
  const first = cachedLayer(cache, 'small', entries, (m) => heard.push(m));
  t.equal(first.cached, false);
  t.match(heard.join('\n'), /writing layer small: 2 entries/, 'progress names the layer');
  t.match(execFileSync('tar', ['-tf', first.file], { encoding: 'utf8' }), /etc\/motd/);
  const second = cachedLayer(cache, 'small', entries);
  t.same({ ...second, cached: false }, first, 'the same file, diff id and size');
  t.equal(second.cached, true);
});

t.test('the cache keeps the most recently used layers of each name', async (t) => {
  const cache = mkdtempSync(path.join(tmpdir(), 'agentbox-layer-prune-'));
  t.teardown(() => execFileSync('rm', ['-rf', cache]));
  const layer = (n: number): TarEntry[] => [{ type: 'file', path: 'n', mode: 0o644, uid: 0, gid: 0, size: String(n).length, content: Buffer.from(String(n)) }];
  const first = cachedLayer(cache, 'app', layer(0));
  // Used long ago: the first to go.
  const old = new Date(Date.now() - 86_400_000);
  utimesSync(`${first.file}.json`, old, old);
  for (let n = 1; n <= KEEP_PER_NAME; n++) cachedLayer(cache, 'app', layer(n));
  cachedLayer(cache, 'other', layer(0));
  const files = readdirSync(path.join(cache, 'layers'));
  t.equal(files.filter((f) => f.startsWith('app-') && f.endsWith('.tar')).length, KEEP_PER_NAME, `${KEEP_PER_NAME} app layers kept`);
  t.notOk(files.includes(path.basename(first.file)), 'the least recently used one is gone, with its metadata');
  t.notOk(files.includes(`${path.basename(first.file)}.json`));
  t.ok(
    files.some((f) => f.startsWith('other-')),
    'another name is left alone',
  );
});
