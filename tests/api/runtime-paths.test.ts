// One place for runtime paths: the image layout by default, re-rooted by AGENTBOX_ROOT; listener overrides.
import t from 'tap';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pino } from 'pino';
import { manifestFileFrom, requiredMounts, runtimePaths } from '../../management-api/src/runtime-paths.js';
import { runStageA } from '../../management-api/src/boot/stage-a.js';
import { runStageB } from '../../management-api/src/boot/stage-b.js';
import type { BootEvents } from '../../management-api/src/boot/boot-events.js';
import { listenConfig, urlFor } from '../../management-api/src/server-config.js';
import { manifestFrom } from './support/harness.js';

t.test('the image layout, and the same layout under AGENTBOX_ROOT', async (t) => {
  // t.match: other runtime files may be added; these must keep their place.
  t.match(runtimePaths({}), {
    root: '/',
    runDir: '/run/agentbox',
    stateDir: '/var/lib/agentbox',
    workspaceDir: '/workspace',
    logDir: '/var/log/agentbox',
    sealFile: '/run/agentbox/bootstrap.done',
    secretsDir: '/var/lib/agentbox/secrets',
    apiKeyFile: '/var/lib/agentbox/secrets/api-key',
    supervisorSocket: '/run/agentbox/supervisord.sock',
    configDir: '/etc/agentbox',
    manifestFile: '/etc/agentbox/agentbox.toml',
  });
  const under = runtimePaths({ AGENTBOX_ROOT: '/tmp/box' });
  for (const [k, v] of Object.entries(under)) t.ok(v.startsWith('/tmp/box'), `${k} is re-rooted`);
  t.equal(under.sealFile, '/tmp/box/run/agentbox/bootstrap.done');
  t.equal(under.apiKeyFile, '/tmp/box/var/lib/agentbox/secrets/api-key');
  t.equal(runtimePaths({ AGENTBOX_ROOT: 'rel/box' }).root, path.resolve('rel/box'), 'a relative root is resolved');
  t.same(
    requiredMounts(under).map((m) => m.name),
    ['state', 'workspace', 'run'],
  );
});

t.test('listeners: manifest values, environment overrides, validation, URLs', async (t) => {
  const { manifest } = await manifestFrom('[api]\nport = 9000\nbind = "127.0.0.1"\n[observability]\nmetrics_port = 9001\n');
  t.same(listenConfig(manifest, {}), { apiHost: '127.0.0.1', apiPort: 9000, metricsHost: '127.0.0.1', metricsPort: 9001 });
  t.same(listenConfig(manifest, { AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0', AGENTBOX_API_BIND: '0.0.0.0', AGENTBOX_METRICS_BIND: '::' }), {
    apiHost: '0.0.0.0',
    apiPort: 0,
    metricsHost: '::',
    metricsPort: 0,
  });
  for (const bad of ['-1', '65536', '80a', ' 80'])
    t.throws(() => listenConfig(manifest, { AGENTBOX_API_PORT: bad }), { name: 'ListenConfigError' }, `"${bad}" refused`);
  t.equal(urlFor('0.0.0.0', 80, '/metrics'), 'http://127.0.0.1:80/metrics', 'a wildcard bind is shown as loopback');
  t.equal(urlFor('::', 80), 'http://[::1]:80');
  t.equal(urlFor('fd00::5', 81), 'http://[fd00::5]:81');
  t.equal(urlFor('0.0.0.0', 9091, '/metrics', '192.168.1.20'), 'http://192.168.1.20:9091/metrics', 'a wildcard bind advertises the manifest address');
  t.equal(urlFor('127.0.0.1', 9091, '', '192.168.1.20'), 'http://127.0.0.1:9091', 'a specific bind is shown as is');
});

t.test('the advertised URL: mesh.advertise_url, else AGENTBOX_ADVERTISE_URL, else none (the listen address)', async (t) => {
  const plain = (await manifestFrom('[mesh]\nmode = "host"\n')).manifest;
  const set = (await manifestFrom('[mesh]\nmode = "host"\nadvertise_url = "https://host-a.example.com/"\n')).manifest;
  const podUrl = 'http://box-0.box-pods.team.svc:9090';
  t.equal(listenConfig(plain, {}).advertiseUrl, undefined, 'nothing set: the listen address is announced');
  t.equal(listenConfig(plain, { AGENTBOX_ADVERTISE_URL: '' }).advertiseUrl, undefined, 'an empty variable counts as unset');
  t.equal(listenConfig(plain, { AGENTBOX_ADVERTISE_URL: podUrl }).advertiseUrl, podUrl, 'the variable the Kubernetes render sets');
  t.equal(listenConfig(set, { AGENTBOX_ADVERTISE_URL: podUrl }).advertiseUrl, 'https://host-a.example.com', 'the manifest wins, without its trailing slash');
  for (const [bad, why] of [
    ['box-0:9090', /is not a URL with a host|uses box-0:\/\//],
    ['ftp://box-0:9090', /uses ftp:\/\/, not http/],
    ['http://u:p@box-0:9090', /user name or password/],
    ['http://box-0:9090/?x=1', /query or fragment/],
    ['http://0.0.0.0:9090', /wildcard address/],
  ] as const) {
    t.throws(() => listenConfig(plain, { AGENTBOX_ADVERTISE_URL: bad }), { name: 'ListenConfigError', message: why }, `"${bad}" refused`);
    t.throws(
      () => listenConfig(plain, { AGENTBOX_ADVERTISE_URL: bad }),
      { message: /^AGENTBOX_ADVERTISE_URL = /, name: 'ListenConfigError' },
      'the message names the variable',
    );
  }
});

t.test('stage A, stage B and the API resolve the manifest file the same way', async (t) => {
  const root = await mkdtemp(path.join(tmpdir(), 'agentbox-manifest-file-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  t.equal(manifestFileFrom({}), '/etc/agentbox/agentbox.toml', 'the image layout');
  t.equal(manifestFileFrom({ AGENTBOX_ROOT: root }), path.join(root, 'etc/agentbox/agentbox.toml'), 're-rooted with AGENTBOX_ROOT');
  t.equal(manifestFileFrom({ AGENTBOX_ROOT: root, AGENTBOX_MANIFEST: '/srv/box.toml' }), '/srv/box.toml', 'AGENTBOX_MANIFEST wins');
  t.equal(
    manifestFileFrom({ AGENTBOX_ROOT: root, AGENTBOX_MANIFEST: '' }),
    path.join(root, 'etc/agentbox/agentbox.toml'),
    'an empty AGENTBOX_MANIFEST counts as unset',
  );

  // Only AGENTBOX_ROOT is set: each stage must find <root>/etc/agentbox/agentbox.toml.
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  await mkdir(path.dirname(paths.manifestFile), { recursive: true });
  await mkdir(paths.workspaceDir, { recursive: true });
  await mkdir(paths.runDir, { recursive: true });
  await writeFile(paths.manifestFile, '[agentbox]\nname = "rerooted"\n');
  const env = { AGENTBOX_ROOT: root, AGENTBOX_LOCAL: '1' };
  const seen: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const events: BootEvents = {
    logger: pino({ level: 'silent' }),
    emit: (event, fields = {}) => seen.push({ event, fields }),
    fail: (event, fields = {}) => seen.push({ event, fields }),
  };
  // Stage A stops later (no artifact list here); what matters is which manifest it loaded.
  await runStageA({ env, events });
  t.same(seen.find((e) => e.event === 'ManifestLoaded')?.fields['manifest'], paths.manifestFile, 'stage A loads the re-rooted manifest');
  t.equal(await runStageB(env, events), 0, 'stage B loads the re-rooted manifest and completes');
  t.ok(existsSync(paths.runtimeHintsFile), 'stage B wrote its hints to the runtime layout');
});
