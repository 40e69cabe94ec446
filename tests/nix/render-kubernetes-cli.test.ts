// `agentbox render --target kubernetes|agent-sandbox` as users run it: the file each target
// writes, --replicas for a mesh host on Postgres, --agent-sandbox-api, --check and --json, bad usage, and the rules
// that refuse what has no Kubernetes form (E048, E049) or warn about it (W020) — for the
// Kubernetes targets only.
import t from 'tap';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentbox, repoRoot } from '../helpers/cli.js';

const reference = readFileSync(path.join(repoRoot, 'agentbox.toml'), 'utf8');
const meshHost = readFileSync(path.join(repoRoot, 'tests/fixtures/manifests/mesh-host.toml'), 'utf8');

/** Render `text` (written to a temp agentbox.toml) with `args`; returns the result and the out dir. */
function render(text: string, args: string[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-render-k8s-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = path.join(dir, 'agentbox.toml');
  writeFileSync(manifest, text);
  const out = path.join(dir, 'out');
  const r = runAgentbox(['render', '--manifest', manifest, '--out', out, ...args]);
  return { r, out, manifest, read: (f: string) => readFileSync(path.join(out, f), 'utf8') };
}

t.test('--target kubernetes writes kubernetes.yaml only; --check finds it up to date', async (t) => {
  const { r, out, read, manifest } = render(reference, ['--target', 'kubernetes']);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  t.same(readdirSync(out), ['kubernetes.yaml']);
  t.match(r.stdout, /kubernetes\.yaml/);
  const yaml = read('kubernetes.yaml');
  t.match(yaml, /^# generated from agentbox\.toml by `agentbox render --target kubernetes` - do not edit$/m);
  t.same(
    [...yaml.matchAll(/^kind: "(\w+)"$/gm)].map((m) => m[1]),
    ['ConfigMap', 'Service', 'Service', 'StatefulSet', 'NetworkPolicy'],
  );
  t.match(yaml, /readOnlyRootFilesystem: true/);
  const check = runAgentbox(['render', '--manifest', manifest, '--out', out, '--target', 'kubernetes', '--check']);
  t.equal(check.code, 0, 'up to date', { stderr: check.stderr });
});

t.test('--target agent-sandbox writes agent-sandbox.yaml with a SandboxTemplate and a Sandbox', async (t) => {
  const { r, out, read } = render(reference, ['--target', 'agent-sandbox', '--json']);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const report = JSON.parse(r.stdout) as { target: string; files: string[] };
  t.equal(report.target, 'agent-sandbox');
  t.same(report.files, [path.join(out, 'agent-sandbox.yaml')]);
  const yaml = read('agent-sandbox.yaml');
  t.match(yaml, /apiVersion: "extensions\.agents\.x-k8s\.io\/v1beta1"\nkind: "SandboxTemplate"/);
  t.match(yaml, /apiVersion: "agents\.x-k8s\.io\/v1beta1"\nkind: "Sandbox"/);
  t.match(yaml, /operatingMode: "Running"/);
  t.notMatch(yaml, /v1alpha1|^\s+replicas: /m, 'nothing of the deprecated API');
});

t.test('--agent-sandbox-api v1alpha1 writes the deprecated API; it is refused with another target or an unknown version', async (t) => {
  const { r, read } = render(reference, ['--target', 'agent-sandbox', '--agent-sandbox-api', 'v1alpha1']);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  const yaml = read('agent-sandbox.yaml');
  t.match(yaml, /apiVersion: "extensions\.agents\.x-k8s\.io\/v1alpha1"\nkind: "SandboxTemplate"/);
  t.match(yaml, /apiVersion: "agents\.x-k8s\.io\/v1alpha1"\nkind: "Sandbox"[\s\S]*replicas: 1/);
  t.notMatch(yaml, /operatingMode/);
  for (const [args, message] of [
    [['--target', 'agent-sandbox', '--agent-sandbox-api', 'v1'], /--agent-sandbox-api must be one of v1beta1, v1alpha1, not "v1"/],
    [['--target', 'kubernetes', '--agent-sandbox-api', 'v1alpha1'], /--agent-sandbox-api applies to --target agent-sandbox only/],
    [['--agent-sandbox-api', 'v1beta1'], /--agent-sandbox-api applies to --target agent-sandbox only/],
  ] as const) {
    const bad = render(reference, [...args]);
    t.equal(bad.r.code, 2, args.join(' '));
    t.match(bad.r.stderr, message);
  }
});

t.test('--replicas sets the mesh host Deployment; it is refused with another target or a bad number', async (t) => {
  const { r, read } = render(meshHost, ['--target', 'kubernetes', '--replicas', '4']);
  t.equal(r.code, 0, 'exit code 0', { stderr: r.stderr });
  t.match(read('kubernetes.yaml'), /kind: "Deployment"[\s\S]*replicas: 4/);
  for (const args of [
    ['--replicas', '2'],
    ['--target', 'kubernetes', '--replicas', '0'],
    ['--target', 'kubernetes', '--replicas', 'many'],
  ]) {
    const bad = render(meshHost, args);
    t.equal(bad.r.code, 2, `${args.join(' ')}: usage error`);
    t.match(bad.r.stderr, /--replicas/);
  }
  const unknown = render(reference, ['--target', 'nomad']);
  t.equal(unknown.r.code, 2);
  t.match(unknown.r.stderr, /--target must be one of compose, kubernetes, agent-sandbox, not "nomad"/);
});

const devices = `[features]
playwright = true

[security]
audit_acknowledged = true

[security.exceptions.playwright]
reason = "a browser with FUSE"
devices = ["/dev/fuse"]
`;

t.test('what has no Kubernetes form is refused for the Kubernetes targets and rendered for compose', async (t) => {
  for (const target of ['kubernetes', 'agent-sandbox']) {
    const { r } = render(devices, ['--target', target]);
    t.equal(r.code, 1, `${target}: refused`);
    t.match(r.stderr, /error E048 exception-devices-without-kubernetes-form at security\.exceptions\.playwright\.devices\.0: .*no Kubernetes form/);
  }
  const named = render(devices.replace('devices = ["/dev/fuse"]', 'volumes = ["pw-cache:/opt/cache"]'), ['--target', 'kubernetes']);
  t.equal(named.r.code, 1);
  t.match(named.r.stderr, /error E049 exception-volume-without-kubernetes-form/);
  const compose = render(devices, []);
  t.equal(compose.r.code, 0, 'compose passes the device through', { stderr: compose.r.stderr });
  t.match(compose.read('docker-compose.yml'), /"\/dev\/fuse"/);
  const hostDir = render(
    devices.replace('devices = ["/dev/fuse"]', 'volumes = ["/srv/cache:/opt/cache:ro"]').replace('audit_acknowledged = true', 'audit_acknowledged = false'),
    ['--target', 'kubernetes'],
  );
  t.equal(hostDir.r.code, 0, 'a warning only', { stderr: hostDir.r.stderr });
  t.match(hostDir.r.stdout, /warning W020 exception-volume-is-host-path/);
  t.match(hostDir.read('kubernetes.yaml'), /hostPath:\n\s+path: "\/srv\/cache"/);
});
