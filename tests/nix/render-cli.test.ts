// `agentbox render` as users run it: the files it writes, the acceptance properties of the issue
// (metrics port → published port and ExposedPorts; a feature adds exactly its exception and
// programme), refusal of invalid manifests, --check, --json, --root, and a missing nix-instantiate.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runAgentbox, repoRoot } from '../helpers/cli.js';

const reference = readFileSync(path.join(repoRoot, 'agentbox.toml'), 'utf8');

/** A temp dir holding `agentbox.toml` with `text`; returns the manifest path and an out dir. */
function box(text: string): { manifest: string; out: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-render-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = path.join(dir, 'agentbox.toml');
  writeFileSync(manifest, text);
  return { manifest, out: path.join(dir, 'out') };
}

function render(text: string, extra: string[] = []) {
  const b = box(text);
  const r = runAgentbox(['render', '--manifest', b.manifest, '--out', b.out, ...extra]);
  const read = (f: string) => readFileSync(path.join(b.out, f), 'utf8');
  return {
    ...b,
    r,
    read,
    image: () =>
      JSON.parse(read('image-config.json')) as {
        name: string;
        tag: string;
        config: { ExposedPorts: Record<string, object>; Labels: Record<string, string>; Env: string[]; User: string };
      },
  };
}

const lines = (s: string) => s.split('\n');
const minus = (a: string[], b: string[]) => a.filter((x) => !b.includes(x));
const sections = (conf: string) => [...conf.matchAll(/^\[([^\]]+)\]$/gm)].map((m) => m[1]!);

t.test('render --out DIR on the reference manifest writes the files', async (t) => {
  const { r, out } = render(reference);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  t.same(readdirSync(out).sort(), ['artifacts.json', 'docker-compose.yml', 'image-config.json', 'supervisord.conf']);
  t.match(r.stdout, /rendered .*agentbox\.toml \(sha256 [0-9a-f]{64}\)/);
  t.match(r.stdout, /image agentbox\/agentbox:\d+\.\d+\.\d+.*-[0-9a-f]{12}/);
  t.match(r.stdout, /required for readiness: egress-proxy, management-api/);
  const dc = spawnSync('docker-compose', ['-f', path.join(out, 'docker-compose.yml'), 'config', '-q'], { encoding: 'utf8' });
  t.equal(dc.status, 0, 'exit code 0', { stderr: dc.stderr });
  const compose = readFileSync(path.join(out, 'docker-compose.yml'), 'utf8');
  t.match(compose, /- "\.\.\/agentbox\.toml:\/etc\/agentbox\/agentbox\.toml:ro"/, 'the manifest is mounted read-only, relative to the compose file');
  t.match(compose, /- "\.\.\/workspace:\/workspace"/, 'the workspace next to the manifest');
});

t.test('changing observability.metrics_port changes the published port and ExposedPorts', async (t) => {
  const before = render(reference);
  const after = render(reference.replace('# metrics_port = 9091', 'metrics_port = 9555'));
  t.equal(after.r.code, 0, 'exit code 0', { stderr: after.r.stderr });
  t.match(before.read('docker-compose.yml'), /"127\.0\.0\.1:9091:9091"/);
  t.notMatch(after.read('docker-compose.yml'), /9091/);
  t.match(after.read('docker-compose.yml'), /"127\.0\.0\.1:9555:9555"/);
  t.same(Object.keys(before.image().config.ExposedPorts), ['9090/tcp', '9091/tcp']);
  t.same(Object.keys(after.image().config.ExposedPorts), ['9090/tcp', '9555/tcp']);
});

t.test('enabling a feature adds exactly its exception and its programme', async (t) => {
  const before = render(reference);
  const after = render(
    reference.replace('code_server = false', 'code_server = true') +
      '\n[security.exceptions.code-server]\nreason = "operators review the workspace in a browser IDE"\ntmpfs = ["/home/agentbox/.cache"]\n',
  );
  t.equal(after.r.code, 0, 'exit code 0', { stderr: after.r.stderr });

  // supervisord.conf: one new section, nothing removed.
  t.same(minus(sections(after.read('supervisord.conf')), sections(before.read('supervisord.conf'))), ['program:code-server']);
  t.same(minus(sections(before.read('supervisord.conf')), sections(after.read('supervisord.conf'))), []);

  // docker-compose.yml: the exception's tmpfs, its audit label and the feature's port are added;
  // only the lines naming the manifest (image tag, sha256 label) change; nothing else goes.
  const a = lines(after.read('docker-compose.yml'));
  const b = lines(before.read('docker-compose.yml'));
  const identity = (l: string) => /^\s+(image|dev\.agentbox\.manifest\.sha256):/.test(l);
  t.same(
    minus(a, b).filter((l) => !identity(l)),
    [
      '      dev.agentbox.exception.code-server: "operators review the workspace in a browser IDE"',
      '      - "127.0.0.1:8443:8443"',
      '      - "/home/agentbox/.cache:uid=1000,gid=1000,size=256m"',
    ],
  );
  t.same(
    minus(b, a).filter((l) => !identity(l)),
    [],
    'no baseline line is removed',
  );

  // image config: the feature's port is exposed and named in the labels.
  t.same(minus(Object.keys(after.image().config.ExposedPorts), Object.keys(before.image().config.ExposedPorts)), ['8443/tcp']);
  t.equal(after.image().config.Labels['dev.agentbox.features'], 'code-server');
});

t.test('an invalid manifest is refused with its diagnostics and nothing is written', async (t) => {
  const { r, out } = render('[observability]\nmetric_port = 9100\n');
  t.equal(r.code, 1);
  t.match(r.stderr, /agentbox\.toml:2:1: error SCHEMA unknown-key/);
  t.match(r.stderr, /invalid, nothing rendered/);
  t.notOk(existsSync(out));
  const json = render('[features]\nplaywright = true\n', ['--json']);
  t.equal(json.r.code, 1);
  const report = JSON.parse(json.r.stdout) as { rendered: boolean; diagnostics: Array<{ id: string }> };
  t.equal(report.rendered, false);
  t.ok(
    report.diagnostics.some((d) => d.id === 'E007'),
    'the rule catalogue runs first (E007 feature-needs-exception)',
  );
});

t.test('unreadable manifest and bad usage exit 2', async (t) => {
  const missing = runAgentbox(['render', '--manifest', path.join(tmpdir(), 'no-such-dir', 'agentbox.toml'), '--out', tmpdir()]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot read the manifest .*: no such file/);
  t.equal(runAgentbox(['render', 'agentbox.toml']).code, 2, 'the manifest is named with --manifest');
  t.equal(runAgentbox(['render', '--bin', 'relative/bin']).code, 2);
  const help = runAgentbox(['render', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /sudo apt-get install nix-bin/);
});

t.test('without nix-instantiate: exit 2 and the exact install command', async (t) => {
  const b = box(reference);
  const r = runAgentbox(['render', '--manifest', b.manifest, '--out', b.out], { env: { PATH: '/nonexistent' } });
  t.equal(r.code, 2);
  t.match(r.stderr, /nix-instantiate not found; install it with `sudo apt-get install nix-bin`/);
});

t.test('--check reports what differs and writes nothing; --json describes the result', async (t) => {
  const { manifest, out, r } = render(reference);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const check = runAgentbox(['render', '--manifest', manifest, '--out', out, '--check']);
  t.equal(check.code, 0, 'exit code 0', { stderr: check.stderr });
  t.match(check.stdout, /up to date/);
  writeFileSync(path.join(out, 'supervisord.conf'), 'edited by hand\n');
  const stale = runAgentbox(['render', '--manifest', manifest, '--out', out, '--check']);
  t.equal(stale.code, 1);
  t.match(stale.stderr, /out of date in .*: supervisord\.conf/);
  t.equal(readFileSync(path.join(out, 'supervisord.conf'), 'utf8'), 'edited by hand\n', '--check wrote nothing');
  const json = runAgentbox(['render', '--manifest', manifest, '--out', out, '--check', '--json']);
  t.equal(json.code, 1);
  const report = JSON.parse(json.stdout) as { rendered: boolean; changed: string[]; readiness: string[]; image: { name: string }; sha256: string };
  t.equal(report.rendered, true);
  t.same(report.changed, [path.join(out, 'supervisord.conf')]);
  t.same(report.readiness, ['egress-proxy', 'management-api']);
  t.equal(report.image.name, 'agentbox/agentbox');
  t.match(report.sha256, /^[0-9a-f]{64}$/);
  const written = runAgentbox(['render', '--manifest', manifest, '--out', out, '--json']);
  t.equal(written.code, 0);
  t.match(readFileSync(path.join(out, 'supervisord.conf'), 'utf8'), /^; generated from agentbox\.toml/);
});

t.test("--root re-roots supervisord.conf and defaults --bin to this installation's config/bin", async (t) => {
  const b = box(reference);
  const root = path.join(path.dirname(b.manifest), 'root');
  const r = runAgentbox(['render', '--manifest', b.manifest, '--out', b.out, '--root', root]);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const conf = readFileSync(path.join(b.out, 'supervisord.conf'), 'utf8');
  t.match(conf, new RegExp(`^file=${root}/run/agentbox/supervisord\\.sock$`, 'm'));
  t.match(conf, new RegExp(`^command=${path.join(repoRoot, 'config/bin')}/agentbox-api$`, 'm'));
  t.notMatch(conf, /^user=/m, 'supervisord never switches user');
  const artifacts = JSON.parse(readFileSync(path.join(b.out, 'artifacts.json'), 'utf8')) as Array<{ capability: string; path: string }>;
  t.equal(artifacts.find((a) => a.capability === 'config:supervisord')?.path, `${root}/etc/agentbox/supervisord.conf`);
  const image = readFileSync(path.join(b.out, 'image-config.json'), 'utf8');
  t.notMatch(image, new RegExp(root), 'the image config keeps the image layout');
});

t.test('a manifest the Nix side cannot carry is refused with the reason (exit 1)', async (t) => {
  const quote = render('[programs.w]\ncommand = "/bin/w"\nenvironment = { Q = \'say "hi"\' }\n');
  t.equal(quote.r.code, 1);
  t.match(quote.r.stderr, /Q contains a double quote, which supervisord's environment= cannot carry/);
  const precise = render('[resources]\ncpus = 1.23456789\n');
  t.equal(precise.r.code, 1);
  t.match(precise.r.stderr, /the Nix and TypeScript normalizations of .* differ at \/resources\/cpus/);
});
