// The URL each rendered pod advertises to its mesh: built by Kubernetes from the pod's own fields
// (a StatefulSet pod's stable DNS name, a Sandbox's Service, a replica's IP) into the variable the
// API reads, left out for a standalone box or when the manifest sets mesh.advertise_url itself.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADVERTISE_URL_ENV, advertisedUrl } from '../../management-api/src/server-config.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { boxObjects, type K8sObject } from './kubernetes-objects.js';
import { repoRoot } from './helpers.js';

type Env = Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: unknown } }>;
const fixture = (name: string) => path.join(repoRoot, 'tests/fixtures/manifests', `${name}.toml`);

/** The container variables of the pod template of `kind` among `objects`. */
function envOf(objects: K8sObject[], kind: string): Env {
  const spec = objects.find((o) => o.kind === kind)!.spec!;
  const tpl = (spec['template'] ?? spec['podTemplate']) as { spec: { containers: Array<{ env?: Env }> } };
  return tpl.spec.containers[0]!.env ?? [];
}

/** What Kubernetes makes of `$(VAR)` references to earlier fieldRef variables, given the pod's fields. */
function expand(env: Env, fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of env) {
    if (e.valueFrom?.fieldRef) out[e.name] = fields[e.valueFrom.fieldRef.fieldPath]!;
    else if (e.value !== undefined) out[e.name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, n: string) => out[n] ?? m);
  }
  return out;
}

const pod = { 'metadata.name': 'box-federated-0', 'metadata.namespace': 'team', 'status.podIP': '10.1.2.3' };

t.test('each form of pod advertises the address other pods reach it at, and the API accepts it', async (t) => {
  const client = boxObjects(fixture('federated')).objects;
  const host = boxObjects(fixture('mesh-host')).objects;
  const cases: Array<[string, Env, string]> = [
    [
      'StatefulSet pod (its name under the headless Service)',
      envOf(client.kubernetes, 'StatefulSet'),
      'http://box-federated-0.box-federated-pods.team.svc:9090',
    ],
    ['Sandbox (the Service the controller names after it)', envOf(client['agent-sandbox'], 'Sandbox'), 'http://box-federated.team.svc:9090'],
    ['SandboxTemplate pod (pooled: its IP)', envOf(client['agent-sandbox'], 'SandboxTemplate'), 'http://10.1.2.3:9090'],
    ['mesh host replica of a Deployment (its IP)', envOf(host.kubernetes, 'Deployment'), 'http://10.1.2.3:9090'],
  ];
  const { manifest } = await loadManifestSource('[mesh]\nmode = "client"\nhost_url = "https://h.example.com"\n', { targetArch: 'x86_64', env: {} });
  for (const [what, env, expected] of cases) {
    const vars = expand(env, pod);
    t.equal(vars[ADVERTISE_URL_ENV], expected, what);
    t.equal(advertisedUrl(manifest!, vars), expected, `${what}: the API announces it`);
    const names = env.map((e) => e.name);
    t.ok(
      names.indexOf(ADVERTISE_URL_ENV) > Math.max(...env.filter((e) => e.valueFrom?.fieldRef).map((e) => names.indexOf(e.name))),
      `${what}: the pod fields come first (Kubernetes expands only earlier variables)`,
    );
  }
});

t.test('no advertised address for a standalone box, nor when the manifest sets mesh.advertise_url', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-advertise-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const reference = boxObjects(fixture('reference')).objects;
  for (const kind of ['StatefulSet'] as const) t.same(envOf(reference.kubernetes, kind), [], `standalone: ${kind} has no variables`);
  const file = path.join(dir, 'set.toml');
  writeFileSync(file, '[agentbox]\nname = "box-a"\n[mesh]\nmode = "client"\nhost_url = "https://h.example.com"\nadvertise_url = "https://box-a.example.com"\n');
  const set = boxObjects(file).objects;
  t.same(envOf(set.kubernetes, 'StatefulSet'), [], 'the manifest names the URL: the pod adds none');
  t.same(envOf(set['agent-sandbox'], 'Sandbox'), []);
});
